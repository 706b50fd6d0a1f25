"""Roles and privileges through the connector: CREATE ROLE / USER, GRANT / REVOKE, USE ROLE,
SHOW GRANTS / ROLES / USERS, and their enforcement on every kind of statement."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import snowflake.connector

from tests.e2e.conftest import Server


@pytest.fixture(scope="module")
def world(server: Server) -> Iterator[dict[str, str]]:
    """An admin-made database with one table, a role ANALYST_x and a user holding it."""
    tag = uuid.uuid4().hex[:6].upper()
    names = {"db": f"ACL_{tag}", "role": f"ANALYST_{tag}", "user": f"ALICE_{tag}", "other": f"BOB_{tag}"}
    with server.connect() as admin:
        cur = admin.cursor()
        cur.execute(f"CREATE DATABASE {names['db']}")
        cur.execute(f"CREATE TABLE {names['db']}.public.sales (id INT, amount NUMBER(10, 2))")
        cur.execute(f"INSERT INTO {names['db']}.public.sales VALUES (1, 10.5), (2, 20)")
        cur.execute(f"CREATE TABLE {names['db']}.public.payroll (salary INT)")
        assert cur.execute(f"CREATE ROLE {names['role']} COMMENT = 'reads sales'").fetchone() == (
            f"Role {names['role']} successfully created.",
        )
        cur.execute(f"CREATE USER {names['user']} PASSWORD = 'pw-1' DEFAULT_ROLE = {names['role']}")
        cur.execute(f"CREATE USER {names['other']} PASSWORD = 'pw-2'")
        cur.execute(f"GRANT ROLE {names['role']} TO USER {names['user']}")
    yield names


def _error(cur: snowflake.connector.cursor.SnowflakeCursor, sql: str) -> snowflake.connector.errors.Error:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute(sql)
    return info.value


def test_privileges_are_enforced_and_grants_listed(server: Server, world: dict[str, str]) -> None:
    db, role, user = world["db"], world["role"], world["user"]
    table = f"{db}.public.sales"
    with server.connect(user=user, password="pw-1") as conn, server.connect() as admin:
        cur, adm = conn.cursor(), admin.cursor()
        assert cur.execute("SELECT CURRENT_ROLE()").fetchone() == (role,)
        # Nothing granted yet: the database is invisible, as on Snowflake.
        denied = _error(cur, f"SELECT * FROM {table}")
        assert (denied.errno, denied.sqlstate) == (2003, "42S02")
        assert f"Database '{db}' does not exist or not authorized." in denied.msg
        adm.execute(f"GRANT USAGE ON DATABASE {db} TO ROLE {role}")
        adm.execute(f"GRANT USAGE ON SCHEMA {db}.public TO ROLE {role}")
        denied = _error(cur, f"SELECT * FROM {table}")
        assert denied.errno == 2003
        assert f"Object '{db}.PUBLIC.SALES' does not exist or not authorized." in denied.msg
        adm.execute(f"GRANT SELECT ON TABLE {table} TO ROLE {role}")
        assert cur.execute(f"SELECT SUM(amount) FROM {table}").fetchone()[0] == 30.5
        assert cur.execute(f"WITH c AS (SELECT * FROM {table}) SELECT COUNT(*) FROM c").fetchone() == (2,)
        # SHOW lists only what the role holds something on, with each object's owner.
        cur.execute(f"SHOW TABLES IN SCHEMA {db}.public")
        assert [(r[1], r[9]) for r in cur.fetchall()] == [("SALES", "ACCOUNTADMIN")]
        cur.execute("SHOW DATABASES")
        assert [r[1] for r in cur.fetchall()] == [db]
        assert _error(cur, f"SELECT * FROM {db}.public.payroll").errno == 2003
        cur.execute(f"SELECT table_name FROM {db}.information_schema.tables WHERE table_schema = 'PUBLIC'")
        assert cur.fetchall() == [("SALES",)]
        # It sees the table but may not write it.
        denied = _error(cur, f"INSERT INTO {table} VALUES (3, 1)")
        assert (denied.errno, denied.sqlstate) == (3001, "42501")
        assert "Insufficient privileges to operate on table 'SALES'" in denied.msg
        for sql in (f"DELETE FROM {table}", f"UPDATE {table} SET amount = 0", f"TRUNCATE TABLE {table}"):
            assert _error(cur, sql).errno == 3001
        assert _error(cur, f"DROP TABLE {table}").errno == 3001  # OWNERSHIP
        for sql in (f"COMMENT ON TABLE {table} IS 'x'", f"COMMENT ON COLUMN {table}.amount IS 'x'"):
            assert _error(cur, sql).errno == 3001  # OWNERSHIP, as ALTER TABLE
        for sql in (f"COMMENT ON SCHEMA {db}.public IS 'x'", f"ALTER DATABASE {db} SET COMMENT = 'x'"):
            assert _error(cur, sql).errno == 3001  # OWNERSHIP of the schema or database
        adm.execute(f"GRANT INSERT ON TABLE {table} TO ROLE {role}")
        cur.execute(f"INSERT INTO {table} VALUES (3, 1)")
        # A MERGE needs the privilege of each of its actions.
        merge = f"MERGE INTO {table} t USING (SELECT 3 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE"
        assert _error(cur, merge).errno == 3001
        adm.execute(f"GRANT DELETE ON TABLE {table} TO ROLE {role}")
        assert cur.execute(merge).fetchone() == (1,)
        adm.execute(f"SHOW GRANTS TO ROLE {role}")
        shown = {(r[1], r[2], r[3]) for r in adm.fetchall()}
        assert {
            ("USAGE", "DATABASE", db),
            ("USAGE", "SCHEMA", f"{db}.PUBLIC"),
            ("SELECT", "TABLE", f"{db}.PUBLIC.SALES"),
            ("INSERT", "TABLE", f"{db}.PUBLIC.SALES"),
            ("DELETE", "TABLE", f"{db}.PUBLIC.SALES"),
        } <= shown
        assert [d[0] for d in adm.description] == [
            "created_on",
            "privilege",
            "granted_on",
            "name",
            "granted_to",
            "grantee_name",
            "grant_option",
            "granted_by",
        ]
        adm.execute(f"REVOKE SELECT ON TABLE {table} FROM ROLE {role}")
        assert _error(cur, f"SELECT * FROM {table}").errno == 3001  # still visible (INSERT), no SELECT
        # Stages: invisible without a privilege, readable with READ, created with CREATE STAGE.
        adm.execute(f"CREATE STAGE {db}.public.drop_zone")
        denied = _error(cur, f"LIST @{db}.public.drop_zone")
        assert denied.errno == 2003 and f"Stage '{db}.PUBLIC.DROP_ZONE' does not exist" in denied.msg
        adm.execute(f"GRANT READ ON STAGE {db}.public.drop_zone TO ROLE {role}")
        assert cur.execute(f"LIST @{db}.public.drop_zone").fetchall() == []
        assert _error(cur, f"CREATE STAGE {db}.public.mine").errno == 3001
        assert _error(cur, f"LIST @{db}.public.%sales").errno == 3001  # a table's stage: its owner's
        # The session went on working through every refusal.
        assert cur.execute("SELECT 1").fetchone() == (1,)


def test_created_objects_belong_to_the_creating_role(server: Server, world: dict[str, str]) -> None:
    db, role, user = world["db"], world["role"], world["user"]
    with server.connect(user=user, password="pw-1") as conn, server.connect() as admin:
        cur, adm = conn.cursor(), admin.cursor()
        adm.execute(f"GRANT USAGE ON DATABASE {db} TO ROLE {role}")
        adm.execute(f"CREATE SCHEMA {db}.work")
        adm.execute(f"GRANT USAGE ON SCHEMA {db}.work TO ROLE {role}")
        assert _error(cur, f"CREATE TABLE {db}.work.mine (x INT)").errno == 3001
        adm.execute(f"GRANT CREATE TABLE ON SCHEMA {db}.work TO ROLE {role}")
        cur.execute(f"CREATE TABLE {db}.work.mine (x INT)")
        cur.execute(f"INSERT INTO {db}.work.mine VALUES (7)")
        # TEMPORARY tables are the session's own: no grants involved.
        cur.execute(f"CREATE TEMPORARY TABLE {db}.work.scratch (y INT)")
        cur.execute(f"INSERT INTO {db}.work.scratch VALUES (1), (2)")
        assert cur.execute(f"SELECT COUNT(*) FROM {db}.work.scratch").fetchone() == (2,)
        cur.execute(f"SHOW GRANTS ON TABLE {db}.work.mine")
        assert [(r[1], r[5]) for r in cur.fetchall()] == [("OWNERSHIP", role)]
        # ACCOUNTADMIN does not see what a role outside its hierarchy owns ...
        assert _error(adm, f"SELECT x FROM {db}.work.mine").errno == 2003
        # ... until that role is granted into the hierarchy (Snowflake's advice: to SYSADMIN).
        adm.execute(f"GRANT ROLE {role} TO ROLE SYSADMIN")
        assert adm.execute(f"SELECT x FROM {db}.work.mine").fetchall() == [(7,)]
        adm.execute(f"REVOKE ROLE {role} FROM ROLE SYSADMIN")
        # The owner comments, renames and drops its own table; the grants follow the name.
        cur.execute(f"COMMENT ON TABLE {db}.work.mine IS 'mine'")
        cur.execute(f"ALTER TABLE {db}.work.mine RENAME TO {db}.work.ours")
        assert cur.execute(f"SELECT x FROM {db}.work.ours").fetchall() == [(7,)]
        # Granting on what it does not own is refused.
        assert _error(cur, f"GRANT SELECT ON TABLE {db}.public.sales TO ROLE PUBLIC").errno == 3001
        cur.execute(f"GRANT SELECT ON TABLE {db}.work.ours TO ROLE PUBLIC")
        # A view it owns too: renamed, it stays its own; another role's view it may not rename.
        adm.execute(f"GRANT CREATE VIEW ON SCHEMA {db}.work TO ROLE {role}")
        cur.execute(f"CREATE VIEW {db}.work.seen AS SELECT x FROM {db}.work.ours")
        cur.execute(f"ALTER VIEW {db}.work.seen RENAME TO {db}.work.shown")
        assert cur.execute(f"SELECT x FROM {db}.work.shown").fetchall() == [(7,)]
        cur.execute(f"SHOW GRANTS ON VIEW {db}.work.shown")
        assert [(r[1], r[5]) for r in cur.fetchall()] == [("OWNERSHIP", role)]
        adm.execute(f"CREATE VIEW {db}.work.theirs AS SELECT 1 AS one")
        adm.execute(f"GRANT SELECT ON VIEW {db}.work.theirs TO ROLE {role}")
        assert _error(cur, f"ALTER VIEW {db}.work.theirs RENAME TO {db}.work.taken").errno == 3001
        cur.execute(f"DROP TABLE {db}.work.ours")
        assert _error(cur, f"SELECT * FROM {db}.work.ours").errno == 2003


def test_roles_users_and_login(server: Server, world: dict[str, str]) -> None:
    role, user, other = world["role"], world["user"], world["other"]
    with server.connect(user=user, password="pw-1") as conn:
        cur = conn.cursor()
        denied = _error(cur, "USE ROLE SYSADMIN")
        assert (denied.errno, denied.sqlstate) == (3013, "42501")
        assert cur.execute("SELECT CURRENT_ROLE()").fetchone() == (role,)
        cur.execute("USE ROLE PUBLIC")
        assert cur.execute("SELECT CURRENT_ROLE()").fetchone() == ("PUBLIC",)
        assert _error(cur, "CREATE ROLE sneaky").errno == 3001  # USERADMIN's privilege
        assert _error(cur, f"GRANT ROLE {role} TO USER {other}").errno == 3001
        assert _error(cur, "CREATE DATABASE nope").errno == 3001
        # Another user's statement is unknown to it: no status, no result.
        with server.connect() as admin:
            qid = admin.cursor().execute("SELECT 'admin only'").sfqid
        assert conn.get_query_status(qid).name == "NO_DATA"
        assert _error(cur, f"SELECT * FROM TABLE(RESULT_SCAN('{qid}'))").errno == 709
        # Nor can it cancel one (ACCOUNTADMIN can cancel anyone's).
        with server.connect() as admin:
            running = admin.cursor()
            running.execute_async("CALL SYSTEM$WAIT(10, 'MINUTES')")
            assert _error(cur, f"SELECT SYSTEM$CANCEL_QUERY('{running.sfqid}')").errno == 100000
            with server.connect() as admin2:
                cancel = f"SELECT SYSTEM$CANCEL_QUERY('{running.sfqid}')"
                assert admin2.cursor().execute(cancel).fetchone() == (f"query [{running.sfqid}] terminated.",)
        # Below ACCOUNTADMIN a user's query history holds its own statements only.
        cur.execute("SELECT DISTINCT user_name FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY())")
        assert cur.fetchall() == [(user,)]
    # The role a connection asks for must be granted; without one the default role is used.
    with pytest.raises(snowflake.connector.errors.DatabaseError) as refused:
        server.connect(user=other, password="pw-2", role=role)
    assert refused.value.errno == 390189
    with server.connect(user=other, password="pw-2") as conn:
        assert conn.cursor().execute("SELECT CURRENT_ROLE()").fetchone() == ("PUBLIC",)
    with server.connect() as admin:
        adm = admin.cursor()
        adm.execute("SHOW ROLES")
        rows = {r[1]: r for r in adm.fetchall()}
        assert {"ACCOUNTADMIN", "SECURITYADMIN", "USERADMIN", "SYSADMIN", "PUBLIC", role} <= set(rows)
        assert rows[role][5] == 1 and rows[role][9] == "reads sales"  # assigned_to_users, comment
        assert rows["ACCOUNTADMIN"][3] == "Y"  # is_current
        adm.execute(f"SHOW GRANTS TO USER {user}")
        assert [(r[1], r[2], r[3]) for r in adm.fetchall()] == [(role, "USER", user)]
        adm.execute(f"SHOW GRANTS OF ROLE {role}")
        assert [(r[2], r[3]) for r in adm.fetchall()] == [("USER", user)]
        adm.execute(f"SHOW USERS LIKE '{user}'")
        assert [(r[0], r[5]) for r in adm.fetchall()] == [(user, role)]
        adm.execute(f"GRANT ROLE {role} TO USER {other}")
    with server.connect(user=other, password="pw-2", role=role) as conn:
        assert conn.cursor().execute("SELECT CURRENT_ROLE()").fetchone() == (role,)
    with server.connect() as admin:
        adm = admin.cursor()
        adm.execute(f"DROP USER {other}")
        assert _error(adm, f"SHOW GRANTS TO USER {other}").errno == 2003
        assert _error(adm, "DROP ROLE PUBLIC").sqlstate == "42501"
        adm.execute("CREATE ROLE temp_role")
        assert adm.execute("DROP ROLE temp_role").fetchone() == ("TEMP_ROLE successfully dropped.",)
        assert _error(adm, "GRANT ROLE ACCOUNTADMIN TO ROLE SYSADMIN").errno == 3005  # a cycle


def test_procedures_and_functions_follow_schema_privileges(server: Server) -> None:
    """Creating a routine needs CREATE FUNCTION | PROCEDURE on its schema; a function runs with its
    creator's rights, so the creator must read what it reads; using one needs to see the schema."""
    tag = uuid.uuid4().hex[:6].upper()
    db, role, user = f"ROUT_{tag}", f"DEV_{tag}", f"DEV_USER_{tag}"
    with server.connect() as admin:
        adm = admin.cursor()
        adm.execute(f"CREATE DATABASE {db}")
        adm.execute(f"CREATE TABLE {db}.public.secret (v INT)")
        adm.execute(f"INSERT INTO {db}.public.secret VALUES (42)")
        adm.execute(f"CREATE FUNCTION {db}.public.admin_fn() RETURNS INT AS 'SELECT MAX(v) FROM secret'")
        adm.execute(f"CREATE ROLE {role}")
        adm.execute(f"CREATE USER {user} PASSWORD = 'pw-3' DEFAULT_ROLE = {role}")
        adm.execute(f"GRANT ROLE {role} TO USER {user}")
        with server.connect(user=user, password="pw-3") as conn:
            cur = conn.cursor()
            # The schema is invisible: its functions do not exist for this role.
            assert _error(cur, f"SELECT {db}.public.admin_fn()").errno == 2140
            assert _error(cur, f"CREATE FUNCTION {db}.public.f() RETURNS INT AS '1'").errno == 2003
            adm.execute(f"GRANT USAGE ON DATABASE {db} TO ROLE {role}")
            adm.execute(f"GRANT USAGE ON SCHEMA {db}.public TO ROLE {role}")
            # Seeing the schema is enough to call the admin's function (owner's rights) ...
            assert cur.execute(f"SELECT {db}.public.admin_fn()").fetchone() == (42,)
            # ... but not to create one there.
            denied = _error(cur, f"CREATE FUNCTION {db}.public.f() RETURNS INT AS '1'")
            assert (denied.errno, denied.sqlstate) == (3001, "42501")
            denied = _error(cur, f"CREATE PROCEDURE {db}.public.p() RETURNS INT AS 'BEGIN RETURN 1; END'")
            assert denied.errno == 3001
            adm.execute(f"GRANT CREATE FUNCTION, CREATE PROCEDURE ON SCHEMA {db}.public TO ROLE {role}")
            cur.execute(f"CREATE FUNCTION {db}.public.f() RETURNS INT AS '1'")
            assert cur.execute(f"SELECT {db}.public.f()").fetchone() == (1,)
            # A function may not read what its creator cannot.
            denied = _error(
                cur, f"CREATE FUNCTION {db}.public.peek() RETURNS INT AS 'SELECT MAX(v) FROM secret'"
            )
            assert denied.errno == 2003
            # A procedure runs with the caller's rights: each statement is checked.
            cur.execute(
                f"CREATE PROCEDURE {db}.public.p() RETURNS INT LANGUAGE SQL "
                "AS 'BEGIN RETURN (SELECT MAX(v) FROM secret); END'"
            )
            denied = _error(cur, f"CALL {db}.public.p()")
            assert "Uncaught exception of type 'EXPRESSION_ERROR'" in denied.msg
            assert cur.execute(f"SHOW USER FUNCTIONS IN SCHEMA {db}.public").fetchall()


def test_sequences_follow_schema_privileges(server: Server) -> None:
    """CREATE / ALTER / DROP SEQUENCE need CREATE SEQUENCE on the schema; NEXTVAL, to see it."""
    tag = uuid.uuid4().hex[:6].upper()
    db, role, user = f"SEQ_{tag}", f"SEQ_DEV_{tag}", f"SEQ_USER_{tag}"
    with server.connect() as admin:
        adm = admin.cursor()
        adm.execute(f"CREATE DATABASE {db}")
        adm.execute(f"CREATE SEQUENCE {db}.public.ids")
        adm.execute(f"CREATE ROLE {role}")
        adm.execute(f"CREATE USER {user} PASSWORD = 'pw-4' DEFAULT_ROLE = {role}")
        adm.execute(f"GRANT ROLE {role} TO USER {user}")
        with server.connect(user=user, password="pw-4") as conn:
            cur = conn.cursor()
            assert _error(cur, f"SELECT {db}.public.ids.nextval").errno == 904  # invisible
            assert cur.execute(f"SHOW SEQUENCES IN DATABASE {db}").fetchall() == []
            adm.execute(f"GRANT USAGE ON DATABASE {db} TO ROLE {role}")
            adm.execute(f"GRANT USAGE ON SCHEMA {db}.public TO ROLE {role}")
            assert cur.execute(f"SELECT {db}.public.ids.nextval").fetchone() == (1,)
            for sql in (
                f"CREATE SEQUENCE {db}.public.mine",
                f"ALTER SEQUENCE {db}.public.ids SET INCREMENT = 5",
                f"DROP SEQUENCE {db}.public.ids",
            ):
                denied = _error(cur, sql)
                assert (denied.errno, denied.sqlstate) == (3001, "42501")
            adm.execute(f"GRANT CREATE SEQUENCE ON SCHEMA {db}.public TO ROLE {role}")
            cur.execute(f"CREATE SEQUENCE {db}.public.mine")
            assert [r[1] for r in cur.execute(f"SHOW SEQUENCES IN SCHEMA {db}.public").fetchall()] == [
                "IDS",
                "MINE",
            ]


def _schema_user(
    adm: snowflake.connector.cursor.SnowflakeCursor, db: str, role: str, user: str, password: str
) -> None:
    """A user whose default role may use the database and its PUBLIC schema, and nothing in it."""
    adm.execute(f"CREATE ROLE {role}")
    adm.execute(f"CREATE USER {user} PASSWORD = '{password}' DEFAULT_ROLE = {role}")
    adm.execute(f"GRANT ROLE {role} TO USER {user}")
    adm.execute(f"GRANT USAGE ON DATABASE {db} TO ROLE {role}")
    adm.execute(f"GRANT USAGE ON SCHEMA {db}.public TO ROLE {role}")


def test_streams_are_listed_and_read_as_their_grants_allow(server: Server) -> None:
    """SHOW / DESCRIBE STREAM see only the streams a role holds a privilege on, as SHOW TABLES."""
    tag = uuid.uuid4().hex[:6].upper()
    db, role, user = f"STR_{tag}", f"STR_READER_{tag}", f"STR_USER_{tag}"
    with server.connect() as admin:
        adm = admin.cursor()
        adm.execute(f"CREATE DATABASE {db}")
        adm.execute(f"CREATE TABLE {db}.public.src (id INT)")
        adm.execute(f"CREATE STREAM {db}.public.s1 ON TABLE {db}.public.src")
        adm.execute(f"CREATE STREAM {db}.public.s2 ON TABLE {db}.public.src")
        adm.execute(f"INSERT INTO {db}.public.src VALUES (1)")
        _schema_user(adm, db, role, user, "pw-5")
        assert len(adm.execute(f"SHOW STREAMS IN SCHEMA {db}.public").fetchall()) == 2
        with server.connect(user=user, password="pw-5") as conn:
            cur = conn.cursor()
            assert cur.execute(f"SHOW STREAMS IN DATABASE {db}").fetchall() == []
            assert _error(cur, f"DESCRIBE STREAM {db}.public.s1").errno == 2003
            assert _error(cur, f"SELECT * FROM {db}.public.s1").errno == 2003
            make = f"CREATE STREAM {db}.public.s3 ON TABLE {db}.public.src"
            assert _error(cur, make).errno == 3001  # no CREATE STREAM on the schema
            adm.execute(f"GRANT CREATE STREAM ON SCHEMA {db}.public TO ROLE {role}")
            assert _error(cur, make).errno == 2003  # the table is not the role's to read
            adm.execute(f"GRANT SELECT ON TABLE {db}.public.src TO ROLE {role}")
            cur.execute(make)
            assert _error(cur, f"DROP STREAM {db}.public.s2").errno == 2003  # invisible to the role
            adm.execute(f"GRANT SELECT ON STREAM {db}.public.s1 TO ROLE {role}")
            assert [r[1] for r in cur.execute(f"SHOW STREAMS IN DATABASE {db}").fetchall()] == ["S1", "S3"]
            assert cur.execute(f"DESCRIBE STREAM {db}.public.s1").fetchone()[1] == "S1"
            assert _error(cur, f"DROP STREAM {db}.public.s1").errno == 3001  # seen, not owned
            read = cur.execute(f"SELECT id, METADATA$ACTION FROM {db}.public.s1").fetchall()
            assert read == [(1, "INSERT")]
            shown = adm.execute(f"SHOW GRANTS ON STREAM {db}.public.s1").fetchall()
            assert ("SELECT", role) in [(r[1], r[5]) for r in shown]
            assert _error(adm, f"GRANT INSERT ON STREAM {db}.public.s1 TO ROLE {role}").errno == 3008


def test_tasks_follow_their_privileges(server: Server) -> None:
    """CREATE TASK needs the schema's CREATE TASK; EXECUTE / RESUME take OPERATE on the task,
    other changes its ownership; SHOW lists the tasks a role holds something on."""
    tag = uuid.uuid4().hex[:6].upper()
    db, role, user = f"TSK_{tag}", f"TSK_OP_{tag}", f"TSK_USER_{tag}"
    with server.connect() as admin:
        adm = admin.cursor()
        adm.execute(f"CREATE DATABASE {db}")
        adm.execute(f"CREATE TABLE {db}.public.log (n INT)")
        adm.execute(f"CREATE TASK {db}.public.job AS INSERT INTO {db}.public.log VALUES (1)")
        _schema_user(adm, db, role, user, "pw-6")
        with server.connect(user=user, password="pw-6") as conn:
            cur = conn.cursor()
            assert cur.execute(f"SHOW TASKS IN DATABASE {db}").fetchall() == []
            assert _error(cur, f"EXECUTE TASK {db}.public.job").errno == 2003  # invisible
            assert _error(cur, f"CREATE TASK {db}.public.mine AS SELECT 1").errno == 3001
            adm.execute(f"GRANT OPERATE ON TASK {db}.public.job TO ROLE {role}")
            assert [r[1] for r in cur.execute(f"SHOW TASKS IN DATABASE {db}").fetchall()] == ["JOB"]
            cur.execute(f"EXECUTE TASK {db}.public.job AWAIT")
            assert adm.execute(f"SELECT n FROM {db}.public.log").fetchall() == [(1,)]  # run as the owner
            cur.execute(f"ALTER TASK {db}.public.job SUSPEND")
            assert _error(cur, f"ALTER TASK {db}.public.job SET COMMENT = 'x'").errno == 3001
            assert _error(cur, f"DROP TASK {db}.public.job").errno == 3001
            adm.execute(f"GRANT CREATE TASK ON SCHEMA {db}.public TO ROLE {role}")
            cur.execute(f"CREATE TASK {db}.public.mine AS SELECT 1")
            assert cur.execute(f"DROP TASK {db}.public.mine").fetchone() == ("MINE successfully dropped.",)


def test_renaming_a_schema_needs_its_ownership(server: Server) -> None:
    tag = uuid.uuid4().hex[:6].upper()
    db, role, user = f"REN_{tag}", f"REN_ROLE_{tag}", f"REN_USER_{tag}"
    with server.connect() as admin:
        adm = admin.cursor()
        adm.execute(f"CREATE DATABASE {db}")
        adm.execute(f"CREATE SCHEMA {db}.owned")
        _schema_user(adm, db, role, user, "pw-9")
        adm.execute(f"GRANT USAGE ON SCHEMA {db}.owned TO ROLE {role}")
        with server.connect(user=user, password="pw-9") as conn:
            cur = conn.cursor()
            denied = _error(cur, f"ALTER SCHEMA {db}.owned RENAME TO renamed")
            assert (denied.errno, denied.sqlstate) == (3001, "42501")
            assert adm.execute(f"SHOW SCHEMAS LIKE 'OWNED' IN DATABASE {db}").fetchall()
            adm.execute(f"GRANT OWNERSHIP ON SCHEMA {db}.owned TO ROLE {role}")
            cur.execute(f"ALTER SCHEMA {db}.owned RENAME TO renamed")
            # The role's privileges went with the schema.
            assert [r[1] for r in cur.execute(f"SHOW SCHEMAS IN DATABASE {db}").fetchall()] == [
                "PUBLIC",
                "RENAMED",
            ]
        adm.execute(f"DROP DATABASE {db}")


def test_is_role_in_session_follows_the_active_role_hierarchy(server: Server, world: dict[str, str]) -> None:
    """IS_ROLE_IN_SESSION: the primary role, the roles it inherits and PUBLIC; names as stored."""
    role, user = world["role"], world["user"]
    with server.connect(user=user, password="pw-1") as conn, server.connect() as admin:
        cur = conn.cursor()
        sql = f"SELECT IS_ROLE_IN_SESSION('{role}'), IS_ROLE_IN_SESSION('PUBLIC'), "
        sql += (
            f"IS_ROLE_IN_SESSION('SYSADMIN'), IS_ROLE_IN_SESSION('{role.lower()}'), IS_ROLE_IN_SESSION(NULL)"
        )
        assert cur.execute(sql).fetchone() == (True, True, False, False, None)
        # A row filter over a column of role names keeps the rows of the roles in session.
        rows = "SELECT column1 FROM VALUES ('PUBLIC'), ('SYSADMIN'), ('ACCOUNTADMIN') "
        rows += "WHERE IS_ROLE_IN_SESSION(column1)"
        assert cur.execute(rows).fetchall() == [("PUBLIC",)]
        # ACCOUNTADMIN inherits SYSADMIN (and everything under it).
        adm = admin.cursor()
        assert adm.execute(rows + " ORDER BY 1").fetchall() == [("ACCOUNTADMIN",), ("PUBLIC",), ("SYSADMIN",)]


def test_a_schema_clone_holds_what_the_role_sees(server: Server) -> None:
    tag = uuid.uuid4().hex[:6].upper()
    db, role, user = f"CLN_{tag}", f"CLN_ROLE_{tag}", f"CLN_USER_{tag}"
    with server.connect() as admin:
        adm = admin.cursor()
        adm.execute(f"CREATE DATABASE {db}")
        adm.execute(f"CREATE TABLE {db}.public.shared (a INT)")
        adm.execute(f"CREATE TABLE {db}.public.secret (b INT)")
        _schema_user(adm, db, role, user, "pw-10")
        adm.execute(f"GRANT CREATE SCHEMA ON DATABASE {db} TO ROLE {role}")
        adm.execute(f"GRANT SELECT ON TABLE {db}.public.shared TO ROLE {role}")
        with server.connect(user=user, password="pw-10") as conn:
            cur = conn.cursor()
            cur.execute(f"CREATE SCHEMA {db}.mine CLONE {db}.public")
            assert [r[1] for r in cur.execute(f"SHOW TABLES IN SCHEMA {db}.mine").fetchall()] == ["SHARED"]
            assert cur.execute(f"SELECT COUNT(*) FROM {db}.mine.shared").fetchone() == (0,)
        adm.execute(f"DROP DATABASE {db}")


def test_the_search_path_finds_only_what_the_role_may_read(server: Server) -> None:
    """A query's unqualified name found in PUBLIC along SEARCH_PATH is checked as if written there."""
    tag = uuid.uuid4().hex[:6].upper()
    db, role, user = f"SP_{tag}", f"SP_ROLE_{tag}", f"SP_USER_{tag}"
    with server.connect() as admin:
        adm = admin.cursor()
        adm.execute(f"CREATE DATABASE {db}")
        adm.execute(f"CREATE TABLE {db}.public.shared (n INT)")
        adm.execute(f"INSERT INTO {db}.public.shared VALUES (7)")
        adm.execute(f"CREATE SCHEMA {db}.work")
        _schema_user(adm, db, role, user, "pw-10")
        adm.execute(f"GRANT USAGE ON SCHEMA {db}.work TO ROLE {role}")
        with server.connect(user=user, password="pw-10") as conn:
            cur = conn.cursor()
            cur.execute(f"USE SCHEMA {db}.work")
            assert _error(cur, "SELECT n FROM shared").errno == 2003  # found, not the role's to read
            adm.execute(f"GRANT SELECT ON TABLE {db}.public.shared TO ROLE {role}")
            assert cur.execute("SELECT n FROM shared").fetchall() == [(7,)]
        adm.execute(f"DROP DATABASE {db}")
