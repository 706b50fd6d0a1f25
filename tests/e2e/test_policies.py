"""Masking and row access policies through the connector: the documented examples, the role a
query runs with deciding what it sees, the policy DDL and its errors.
https://docs.snowflake.com/en/user-guide/security-column-ddm-use
https://docs.snowflake.com/en/user-guide/security-row-using"""

from __future__ import annotations

from typing import Any

import pytest
import snowflake.connector

from tests.e2e.conftest import Server, reading_role

EMAIL_MASK = """CREATE OR REPLACE MASKING POLICY email_mask AS (val string) RETURNS string ->
  CASE WHEN CURRENT_ROLE() IN ('{role}') THEN val ELSE '*********' END"""


def _error(cur: Any, sql: str) -> snowflake.connector.errors.ProgrammingError:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute(sql)
    return info.value


def _user_info(cur: Any) -> None:
    cur.execute("CREATE TABLE user_info (id INT, email VARCHAR, visibility VARCHAR, region VARCHAR)")
    cur.execute(
        "INSERT INTO user_info VALUES (1, 'a@x.com', 'public', 'EU'), (2, 'b@x.com', 'private', 'US'),"
        " (3, NULL, 'public', 'EU')"
    )


@pytest.fixture
def analyst(server: Server, database: str) -> str:
    return reading_role(server, database, "ANALYST")


def test_masking_follows_the_querying_role(cur: Any, database: str, analyst: str) -> None:
    _user_info(cur)
    cur.execute(f"GRANT SELECT ON TABLE {database}.public.user_info TO ROLE {analyst}")
    assert cur.execute(EMAIL_MASK.format(role=analyst)).fetchone() == (
        "Masking policy EMAIL_MASK successfully created.",
    )
    cur.execute("ALTER TABLE IF EXISTS user_info MODIFY COLUMN email SET MASKING POLICY email_mask")
    masked = [(1, "*********"), (2, "*********"), (3, "*********")]
    plain = [(1, "a@x.com"), (2, "b@x.com"), (3, None)]
    assert cur.execute("SELECT id, email FROM user_info ORDER BY id").fetchall() == masked
    # Masked wherever the query reads the column: filters, groups, joins, CTAS, views.
    assert cur.execute("SELECT COUNT(*) FROM user_info u WHERE u.email = 'a@x.com'").fetchone() == (0,)
    assert cur.execute("SELECT email, COUNT(*) FROM user_info GROUP BY email").fetchall() == [
        ("*********", 3)
    ]
    cur.execute("CREATE VIEW emails AS SELECT id, email FROM user_info")
    cur.execute(f"GRANT SELECT ON VIEW {database}.public.emails TO ROLE {analyst}")
    assert cur.execute("SELECT * FROM emails ORDER BY id").fetchall() == masked
    joined = "SELECT a.id, b.email FROM user_info a JOIN user_info b ON a.id = b.id ORDER BY 1"
    assert cur.execute(joined).fetchall() == masked
    cur.execute("CREATE TABLE copied AS SELECT * FROM user_info")
    assert cur.execute("SELECT DISTINCT email FROM copied").fetchall() == [("*********",)]
    described = cur.execute("DESCRIBE TABLE user_info").fetchall()
    policy_column = [d.name for d in cur.description].index("policy name")
    assert [r[policy_column] for r in described] == [None, f"{database}.PUBLIC.EMAIL_MASK", None, None]
    # The role that holds the privilege the body asks for sees the values (a reused result of
    # the same text under the other role is not served to it).
    cur.execute(f"USE ROLE {analyst}")
    assert cur.execute("SELECT id, email FROM user_info ORDER BY id").fetchall() == plain
    assert cur.execute("SELECT * FROM emails ORDER BY id").fetchall() == plain
    cur.execute("USE ROLE ACCOUNTADMIN")
    assert cur.execute("SELECT id, email FROM user_info ORDER BY id").fetchall() == masked
    # Unset, the column reads as stored; then the policy may go.
    cur.execute("ALTER TABLE user_info MODIFY COLUMN email UNSET MASKING POLICY")
    assert cur.execute("SELECT id, email FROM user_info ORDER BY id").fetchall() == plain
    assert cur.execute("DROP MASKING POLICY email_mask").fetchone() == ("EMAIL_MASK successfully dropped.",)


def test_conditional_masking_and_types(cur: Any) -> None:
    _user_info(cur)
    cur.execute("CREATE TABLE payroll (id INT, salary NUMBER(10, 2), hired DATE)")
    cur.execute("INSERT INTO payroll VALUES (1, 1234.56, '2024-03-01'), (2, NULL, '2020-01-15')")
    # The documented conditional policy: the second argument decides.
    cur.execute(
        "CREATE MASKING POLICY email_visibility AS (email varchar, visibility string) RETURNS varchar ->"
        " CASE WHEN visibility = 'public' THEN email ELSE '***MASKED***' END"
        " COMMENT = 'shows public emails'"
    )
    cur.execute(
        "ALTER TABLE user_info MODIFY COLUMN email"
        " SET MASKING POLICY email_visibility USING (email, visibility)"
    )
    assert cur.execute("SELECT id, email FROM user_info ORDER BY id").fetchall() == [
        (1, "a@x.com"),
        (2, "***MASKED***"),
        (3, None),
    ]
    # A NUMBER and a DATE masked keep their column's types.
    cur.execute("CREATE MASKING POLICY round_down AS (v NUMBER) RETURNS NUMBER -> FLOOR(v / 1000) * 1000")
    cur.execute("CREATE MASKING POLICY year_only AS (d DATE) RETURNS DATE -> DATE_TRUNC('YEAR', d)")
    cur.execute("ALTER TABLE payroll MODIFY COLUMN salary SET MASKING POLICY round_down")
    cur.execute("ALTER TABLE payroll ALTER COLUMN hired SET MASKING POLICY year_only")
    rows = cur.execute("SELECT salary, hired FROM payroll ORDER BY id").fetchall()
    assert [(None if s is None else float(s), str(h)) for s, h in rows] == [
        (1000.0, "2024-01-01"),
        (None, "2020-01-01"),
    ]
    salary = cur.description[0]
    assert (salary.name, salary.precision, salary.scale) == ("SALARY", 10, 2)
    # DESCRIBE and SHOW show the policy as written.
    assert cur.execute("DESCRIBE MASKING POLICY email_visibility").fetchall() == [
        (
            "EMAIL_VISIBILITY",
            "(EMAIL VARCHAR, VISIBILITY VARCHAR)",
            "VARCHAR(16777216)",
            "CASE WHEN visibility = 'public' THEN email ELSE '***MASKED***' END",
        )
    ]
    cur.execute("SHOW MASKING POLICIES LIKE 'EMAIL%'")
    shown = [dict(zip([d.name for d in cur.description], r, strict=True)) for r in cur.fetchall()]
    assert [(s["name"], s["kind"], s["comment"]) for s in shown] == [
        ("EMAIL_VISIBILITY", "MASKING_POLICY", "shows public emails")
    ]
    # Where each policy is attached, by policy or by table.
    by_policy = (
        "SELECT policy_name, policy_kind, ref_entity_name, ref_entity_domain, ref_column_name,"
        " ref_arg_column_names, policy_status"
        " FROM TABLE(INFORMATION_SCHEMA.POLICY_REFERENCES(POLICY_NAME => 'email_visibility'))"
    )
    assert cur.execute(by_policy).fetchall() == [
        ("EMAIL_VISIBILITY", "MASKING_POLICY", "USER_INFO", "TABLE", "EMAIL", '["VISIBILITY"]', "ACTIVE")
    ]
    by_table = (
        "SELECT policy_name, ref_column_name, ref_arg_column_names"
        " FROM TABLE(INFORMATION_SCHEMA.POLICY_REFERENCES("
        "REF_ENTITY_NAME => 'payroll', REF_ENTITY_DOMAIN => 'table')) ORDER BY 1"
    )
    assert cur.execute(by_table).fetchall() == [("ROUND_DOWN", "SALARY", None), ("YEAR_ONLY", "HIRED", None)]
    # ALTER ... SET BODY takes effect on the next query.
    cur.execute("ALTER MASKING POLICY round_down SET BODY -> -v")
    assert float(cur.execute("SELECT salary FROM payroll WHERE id = 1").fetchone()[0]) == -1234.56


def test_policy_errors_leave_things_as_they_were(cur: Any) -> None:
    _user_info(cur)
    cur.execute(EMAIL_MASK.format(role="NOBODY"))
    cur.execute("CREATE MASKING POLICY number_mask AS (v NUMBER) RETURNS NUMBER -> 0")
    cur.execute("ALTER TABLE user_info MODIFY COLUMN email SET MASKING POLICY email_mask")
    # One masking policy per column unless FORCE replaces it.
    error = _error(cur, "ALTER TABLE user_info MODIFY COLUMN email SET MASKING POLICY email_mask")
    assert "already attached to another masking policy" in error.msg
    assert (
        _error(cur, "ALTER TABLE user_info MODIFY COLUMN id SET MASKING POLICY email_mask").sqlstate
        == "42601"
    )
    assert _error(cur, "ALTER TABLE user_info MODIFY COLUMN nope SET MASKING POLICY email_mask").errno == 904
    missing = _error(cur, "ALTER TABLE user_info MODIFY COLUMN id SET MASKING POLICY no_such_policy")
    assert missing.errno == 2003 and "does not exist or not authorized" in missing.msg
    # An attached policy can be neither dropped nor replaced.
    error = _error(cur, "DROP MASKING POLICY email_mask")
    assert "cannot be dropped/replaced as it is associated with one or more entities" in error.msg
    assert "associated" in _error(cur, EMAIL_MASK.format(role="X")).msg
    cur.execute("ALTER TABLE user_info MODIFY COLUMN id SET MASKING POLICY number_mask")
    assert cur.execute("SELECT DISTINCT id, email FROM user_info").fetchall() == [(0, "*********")]
    # A masking policy must return its argument's type; a row access policy BOOLEAN.
    assert _error(cur, "CREATE MASKING POLICY bad AS (v NUMBER) RETURNS VARCHAR -> 'x'").sqlstate == "42601"
    assert _error(cur, "CREATE ROW ACCESS POLICY bad AS (v NUMBER) RETURNS NUMBER -> 1").sqlstate == "42601"
    assert _error(cur, "DROP MASKING POLICY no_such_policy").errno == 2003
    no_table = "ALTER TABLE IF EXISTS no_such_table MODIFY COLUMN c SET MASKING POLICY email_mask"
    assert cur.execute(no_table).fetchone() == ("Statement executed successfully.",)
    assert cur.execute("DROP MASKING POLICY IF EXISTS no_such_policy").fetchone() == (
        "Drop statement executed successfully (NO_SUCH_POLICY already dropped).",
    )
    # The session goes on; renaming keeps the attachment.
    cur.execute("ALTER MASKING POLICY number_mask RENAME TO zero_mask")
    assert cur.execute("SELECT SUM(id) FROM user_info").fetchone() == (0,)
    cur.execute("SHOW MASKING POLICIES")
    assert sorted(r[1] for r in cur.fetchall()) == ["EMAIL_MASK", "ZERO_MASK"]


def test_row_access_policy_with_a_mapping_table(cur: Any, database: str, analyst: str) -> None:
    _user_info(cur)
    cur.execute(
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE {database}.public.user_info TO ROLE {analyst}"
    )
    # The documented pattern: a mapping table says which role sees which region. The querying
    # role needs no privilege on it (the policy reads it with its owner's rights).
    cur.execute("CREATE TABLE region_map (role_name VARCHAR, region VARCHAR)")
    cur.execute(f"INSERT INTO region_map VALUES ('{analyst}', 'EU')")
    assert cur.execute(
        "CREATE ROW ACCESS POLICY region_policy AS (sales_region varchar) RETURNS BOOLEAN ->"
        " 'ACCOUNTADMIN' = CURRENT_ROLE()"
        " OR EXISTS (SELECT 1 FROM region_map WHERE role_name = CURRENT_ROLE() AND region = sales_region)"
    ).fetchone() == ("Row access policy REGION_POLICY successfully created.",)
    cur.execute("ALTER TABLE user_info ADD ROW ACCESS POLICY region_policy ON (region)")
    assert cur.execute("SELECT COUNT(*) FROM user_info").fetchone() == (3,)
    cur.execute(f"USE ROLE {analyst}")
    assert cur.execute("SELECT id, region FROM user_info ORDER BY id").fetchall() == [(1, "EU"), (3, "EU")]
    assert cur.execute("SELECT COUNT(*) FROM user_info WHERE region = 'US'").fetchone() == (0,)
    denied = _error(cur, "SELECT * FROM region_map")
    assert denied.errno == 2003
    # UPDATE, DELETE and MERGE change only the rows the policy shows; to MERGE the others do not match.
    assert cur.execute("UPDATE user_info SET visibility = 'seen'").fetchone() == (2, 0)
    assert cur.execute("DELETE FROM user_info WHERE id >= 3").fetchone() == (1,)
    merged = cur.execute(
        "MERGE INTO user_info t USING (SELECT 1 AS id UNION ALL SELECT 2) s ON t.id = s.id"
        " WHEN MATCHED THEN UPDATE SET email = 'merged'"
        " WHEN NOT MATCHED THEN INSERT (id, region) VALUES (s.id + 10, 'EU')"
    ).fetchone()
    assert merged == (1, 1)
    cur.execute("USE ROLE ACCOUNTADMIN")
    assert cur.execute("SELECT id, email, visibility, region FROM user_info ORDER BY id").fetchall() == [
        (1, "merged", "seen", "EU"),
        (2, "b@x.com", "private", "US"),
        (12, None, None, "EU"),
    ]
    # One row access policy per table; DROP ..., ADD ... swaps it in one statement.
    cur.execute("CREATE ROW ACCESS POLICY nobody AS (r varchar) RETURNS BOOLEAN -> FALSE")
    assert (
        "Only one ROW_ACCESS_POLICY"
        in _error(cur, "ALTER TABLE user_info ADD ROW ACCESS POLICY nobody ON (region)").msg
    )
    cur.execute(
        "ALTER TABLE user_info DROP ROW ACCESS POLICY region_policy, ADD ROW ACCESS POLICY nobody ON (region)"
    )
    assert cur.execute("SELECT COUNT(*) FROM user_info").fetchone() == (0,)
    assert cur.execute("DELETE FROM user_info").fetchone() == (0,)
    cur.execute("SHOW ROW ACCESS POLICIES")
    assert sorted(r[1] for r in cur.fetchall()) == ["NOBODY", "REGION_POLICY"]
    assert cur.execute("DESCRIBE ROW ACCESS POLICY nobody").fetchall() == [
        ("NOBODY", "(R VARCHAR)", "BOOLEAN", "FALSE")
    ]
    cur.execute("ALTER TABLE user_info DROP ALL ROW ACCESS POLICIES")
    assert cur.execute("SELECT COUNT(*) FROM user_info").fetchone() == (3,)
    assert cur.execute("DROP ROW ACCESS POLICY nobody").fetchone() == ("NOBODY successfully dropped.",)


def test_policy_statements_need_privileges(server: Server, database: str, analyst: str) -> None:
    with server.connect(database=database, schema="PUBLIC") as conn:
        cur = conn.cursor()
        _user_info(cur)
        cur.execute(f"GRANT SELECT ON TABLE {database}.public.user_info TO ROLE {analyst}")
        cur.execute(EMAIL_MASK.format(role=analyst))
        cur.execute(f"USE ROLE {analyst}")
        # Reading is not owning: neither the policy nor its attachment is the analyst's to change.
        create = "CREATE MASKING POLICY m2 AS (v varchar) RETURNS varchar -> 'hidden'"
        assert _error(cur, create).errno == 3001
        attach = "ALTER TABLE user_info MODIFY COLUMN email SET MASKING POLICY m2"
        assert _error(cur, attach).errno == 3001
        assert cur.execute("SELECT COUNT(*) FROM user_info WHERE email IS NOT NULL").fetchone() == (2,)
        # Granted, as on Snowflake: CREATE MASKING POLICY on the schema, APPLY MASKING POLICY on
        # the account (set policies on tables the role does not own).
        with server.connect() as admin:
            admin.cursor().execute(
                f"GRANT CREATE MASKING POLICY ON SCHEMA {database}.public TO ROLE {analyst}"
            )
            admin.cursor().execute(f"GRANT APPLY MASKING POLICY ON ACCOUNT TO ROLE {analyst}")
        cur.execute(create)
        cur.execute(attach)
        assert cur.execute("SELECT DISTINCT email FROM user_info").fetchall() == [("hidden",)]
        cur.execute("ALTER TABLE user_info MODIFY COLUMN email UNSET MASKING POLICY")


def test_policies_declared_by_create_table_follow_the_table(cur: Any) -> None:
    cur.execute("CREATE MASKING POLICY hide AS (val string) RETURNS string -> '***'")
    cur.execute("CREATE ROW ACCESS POLICY above_one AS (v int) RETURNS BOOLEAN -> v > 1")
    cur.execute(
        "CREATE TABLE t (id INT, email VARCHAR WITH MASKING POLICY hide)"
        " WITH ROW ACCESS POLICY above_one ON (id)"
    )
    cur.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    third = cur.execute("INSERT INTO t VALUES (3, 'c')").sfqid
    assert cur.execute("SELECT * FROM t ORDER BY id").fetchall() == [(2, "***"), (3, "***")]
    # Time travel reads the earlier version through the same policies.
    assert cur.execute(f"SELECT * FROM t BEFORE(STATEMENT => '{third}') ORDER BY id").fetchall() == [
        (2, "***")
    ]
    # A policy that does not exist or does not fit fails the CREATE and leaves no table behind.
    assert _error(cur, "CREATE TABLE t2 (id INT, email VARCHAR WITH MASKING POLICY nope)").errno == 2003
    assert _error(cur, "CREATE TABLE t3 (id INT WITH MASKING POLICY hide)").sqlstate == "42601"
    cur.execute("SHOW TABLES")
    assert [r[1] for r in cur.fetchall()] == ["T"]
    # Renamed, the table keeps its policies; dropped, it takes them along (UNDROP brings both
    # back, and a new table of the same name starts without them).
    cur.execute("ALTER TABLE t RENAME TO renamed")
    assert cur.execute("SELECT COUNT(*), MAX(email) FROM renamed").fetchone() == (2, "***")
    cur.execute("DROP TABLE renamed")
    cur.execute("UNDROP TABLE renamed")  # back with its policies
    assert cur.execute("SELECT COUNT(*), MAX(email) FROM renamed").fetchone() == (2, "***")
    cur.execute("DROP TABLE renamed")
    cur.execute("CREATE TABLE renamed (id INT, email VARCHAR)")
    cur.execute("INSERT INTO renamed VALUES (1, 'a')")
    assert cur.execute("SELECT * FROM renamed").fetchall() == [(1, "a")]
    assert cur.execute("DROP MASKING POLICY hide").fetchone() == ("HIDE successfully dropped.",)


def test_changes_and_streams_read_through_the_policies(cur: Any) -> None:
    cur.execute("CREATE MASKING POLICY hide AS (val string) RETURNS string -> '***'")
    cur.execute("CREATE TABLE t (id INT, email VARCHAR) CHANGE_TRACKING = TRUE")
    first = cur.execute("INSERT INTO t VALUES (1, 'a')").sfqid
    cur.execute("CREATE STREAM s ON TABLE t")
    cur.execute("INSERT INTO t VALUES (2, 'b')")
    cur.execute("ALTER TABLE t MODIFY COLUMN email SET MASKING POLICY hide")
    changes = f"SELECT * FROM t CHANGES(INFORMATION => DEFAULT) AT(STATEMENT => '{first}')"
    assert cur.execute(changes).fetchall() == [(2, "***", "INSERT", False)]
    assert [d.name for d in cur.description] == ["ID", "EMAIL", "METADATA$ACTION", "METADATA$ISUPDATE"]
    assert cur.execute("SELECT * FROM s").fetchall() == [(2, "***", "INSERT", False)]
    cur.execute("CREATE TABLE consumed AS SELECT id, email FROM s")
    assert cur.execute("SELECT * FROM consumed").fetchall() == [(2, "***")]


def test_policies_on_a_view(cur: Any, database: str, analyst: str) -> None:
    _user_info(cur)
    cur.execute("CREATE VIEW contacts AS SELECT id, UPPER(email) AS contact, region FROM user_info")
    cur.execute(f"GRANT SELECT ON VIEW {database}.public.contacts TO ROLE {analyst}")
    cur.execute(EMAIL_MASK.format(role=analyst))
    cur.execute("CREATE ROW ACCESS POLICY eu_only AS (r varchar) RETURNS BOOLEAN -> r = 'EU'")
    cur.execute("ALTER VIEW contacts MODIFY COLUMN contact SET MASKING POLICY email_mask")
    cur.execute("ALTER VIEW contacts ADD ROW ACCESS POLICY eu_only ON (region)")
    assert cur.execute("SELECT * FROM contacts ORDER BY id").fetchall() == [
        (1, "*********", "EU"),
        (3, "*********", "EU"),
    ]
    # The view's own table is not masked; its policies follow the view's role rules.
    assert cur.execute("SELECT COUNT(email) FROM user_info").fetchone() == (2,)
    cur.execute(f"USE ROLE {analyst}")
    assert cur.execute("SELECT id, contact FROM contacts ORDER BY id").fetchall() == [
        (1, "A@X.COM"),
        (3, None),
    ]
    cur.execute("USE ROLE ACCOUNTADMIN")
    assert _error(cur, "ALTER VIEW contacts MODIFY COLUMN nope SET MASKING POLICY email_mask").errno == 904
    references = (
        "SELECT ref_entity_name, ref_entity_domain, ref_column_name FROM TABLE("
        "INFORMATION_SCHEMA.POLICY_REFERENCES(REF_ENTITY_NAME => 'contacts', REF_ENTITY_DOMAIN => 'view'))"
        " ORDER BY 3"
    )
    assert cur.execute(references).fetchall() == [("CONTACTS", "VIEW", "CONTACT"), ("CONTACTS", "VIEW", None)]
    cur.execute("ALTER VIEW contacts RENAME TO renamed_contacts")
    assert cur.execute("SELECT COUNT(*) FROM renamed_contacts").fetchone() == (2,)
    cur.execute("DROP VIEW renamed_contacts")
    assert cur.execute("DROP MASKING POLICY email_mask").fetchone() == ("EMAIL_MASK successfully dropped.",)


def test_clones_and_ddl_keep_the_policies(cur: Any, database: str) -> None:
    cur.execute("CREATE SCHEMA sec")
    cur.execute("CREATE MASKING POLICY sec.hide AS (val string) RETURNS string -> '***' COMMENT = 'pii'")
    cur.execute("CREATE ROW ACCESS POLICY sec.eu AS (r varchar) RETURNS BOOLEAN -> r = 'EU'")
    cur.execute(
        "CREATE TABLE sec.people (id INT, email VARCHAR WITH MASKING POLICY sec.hide, region VARCHAR)"
    )
    cur.execute("ALTER TABLE sec.people ADD ROW ACCESS POLICY sec.eu ON (region)")
    cur.execute("INSERT INTO sec.people VALUES (1, 'a@x.com', 'EU'), (2, 'b@x.com', 'US')")
    # A clone is as protected as its source, in the same schema or in a cloned one.
    cur.execute("CREATE TABLE public.people_copy CLONE sec.people")
    assert cur.execute("SELECT * FROM public.people_copy").fetchall() == [(1, "***", "EU")]
    cur.execute("CREATE SCHEMA sec_copy CLONE sec")
    assert cur.execute("SELECT * FROM sec_copy.people").fetchall() == [(1, "***", "EU")]
    references = (
        "SELECT policy_schema, policy_name FROM TABLE(INFORMATION_SCHEMA.POLICY_REFERENCES("
        "REF_ENTITY_NAME => 'sec_copy.people')) ORDER BY 2"
    )
    assert cur.execute(references).fetchall() == [("SEC_COPY", "EU"), ("SEC_COPY", "HIDE")]
    # GET_DDL: the policy, and the table with its policies (policies first in a schema's DDL).
    assert cur.execute("SELECT GET_DDL('POLICY', 'sec.hide')").fetchone()[0] == (
        "create or replace masking policy HIDE as (VAL VARCHAR(16777216)) returns VARCHAR(16777216) ->\n"
        "'***'\ncomment='pii';"
    )
    assert cur.execute("SELECT GET_DDL('TABLE', 'sec.people')").fetchone()[0] == (
        "create or replace TABLE PEOPLE (\n\tID NUMBER(38,0),\n"
        "\tEMAIL VARCHAR(16777216) with masking policy HIDE,\n\tREGION VARCHAR(16777216)\n"
        ") with row access policy EU on (REGION);"
    )
    schema_ddl = cur.execute("SELECT GET_DDL('SCHEMA', 'sec')").fetchone()[0]
    assert schema_ddl.index("masking policy HIDE") < schema_ddl.index("TABLE PEOPLE")


def test_a_policy_whose_schema_is_dropped_fails_closed(cur: Any) -> None:
    cur.execute("CREATE SCHEMA sec")
    cur.execute("CREATE MASKING POLICY sec.hide AS (val string) RETURNS string -> '***'")
    cur.execute("CREATE TABLE public.people (id INT, email VARCHAR WITH MASKING POLICY sec.hide)")
    cur.execute("INSERT INTO public.people VALUES (1, 'a@x.com')")
    cur.execute("DROP SCHEMA sec")
    # The data stays protected: the query fails rather than show it unmasked.
    error = _error(cur, "SELECT email FROM public.people")
    assert error.errno == 2003 and "HIDE' set on" in error.msg
    cur.execute("UNDROP SCHEMA sec")
    assert cur.execute("SELECT * FROM public.people").fetchall() == [(1, "***")]
