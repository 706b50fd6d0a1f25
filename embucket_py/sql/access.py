"""Access-control statements, parsed from their text (sqlglot has no grammar for most of them).

CREATE/DROP ROLE, GRANT/REVOKE ROLE, GRANT/REVOKE <privileges>, GRANT OWNERSHIP, SHOW ROLES,
SHOW GRANTS, SHOW USERS, DROP USER and ALTER USER ... SET DEFAULT_ROLE.
https://docs.snowflake.com/en/sql-reference/commands-user-role
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot.tokens import Token, Tokenizer, TokenType

from embucket_py.errors import SyntaxError_, Unsupported

# Privileges of two words (CREATE TABLE, MANAGE GRANTS): the first word and the seconds it takes.
_TWO_WORDS = {
    "CREATE": {
        "TABLE",
        "VIEW",
        "SCHEMA",
        "DATABASE",
        "ROLE",
        "WAREHOUSE",
        "USER",
        "STAGE",
        "FILE",
        "FUNCTION",
        "PROCEDURE",
        "SEQUENCE",
        "STREAM",
        "TASK",
        "MASKING",
        "ROW",
        "TAG",
    },
    "MANAGE": {"GRANTS"},
    "APPLY": {"MASKING", "ROW", "TAG"},
}
# The words that end a privilege of three or more (CREATE FILE FORMAT, APPLY ROW ACCESS POLICY).
_LAST_WORDS = {"FILE": ("FORMAT",), "MASKING": ("POLICY",), "ROW": ("ACCESS", "POLICY")}
_OBJECT_KINDS = {
    "ACCOUNT",
    "DATABASE",
    "SCHEMA",
    "TABLE",
    "VIEW",
    "STREAM",
    "TASK",
    "STAGE",
    "ROLE",
    "USER",
    "WAREHOUSE",
}


@dataclass(frozen=True)
class Target:
    """ON what: one securable, or `ALL <kind>s IN SCHEMA|DATABASE <name>` (`every`)."""

    # ACCOUNT DATABASE SCHEMA TABLE VIEW STREAM TASK STAGE WAREHOUSE (for `every`: each object's kind)
    kind: str
    parts: list[str] = field(default_factory=list)  # the name as written, case-normalised
    every: str | None = None  # SCHEMA or DATABASE: the container of `ALL ... IN`


@dataclass(frozen=True)
class RoleDdl:
    action: str  # CREATE or DROP
    name: str
    replace: bool = False
    if_not_exists: bool = False
    if_exists: bool = False
    comment: str | None = None


@dataclass(frozen=True)
class RoleGrant:
    grant: bool  # False: REVOKE
    role: str
    grantee_kind: str  # USER or ROLE
    grantee: str


@dataclass(frozen=True)
class PrivilegeGrant:
    grant: bool  # False: REVOKE
    privileges: list[str]  # ["ALL"] for ALL [PRIVILEGES]
    target: Target
    role: str
    grant_option: bool = False  # GRANT ... WITH GRANT OPTION / REVOKE GRANT OPTION FOR ...


@dataclass(frozen=True)
class OwnershipGrant:
    target: Target
    role: str
    copy_grants: bool  # COPY CURRENT GRANTS (else the outbound grants are revoked)


@dataclass(frozen=True)
class ShowRoles:
    like: str | None


@dataclass(frozen=True)
class ShowGrants:
    mode: str  # ON, TO_ROLE, TO_USER, OF_ROLE, or CURRENT (no clause: the current user's roles)
    target: Target | None = None
    name: str | None = None


@dataclass(frozen=True)
class ShowUsers:
    like: str | None


@dataclass(frozen=True)
class DropUser:
    name: str
    if_exists: bool


@dataclass(frozen=True)
class AlterUser:
    name: str
    default_role: str | None  # SET DEFAULT_ROLE = r (None with `unset`)
    unset: bool = False


AccessStatement = (
    RoleDdl
    | RoleGrant
    | PrivilegeGrant
    | OwnershipGrant
    | ShowRoles
    | ShowGrants
    | ShowUsers
    | DropUser
    | AlterUser
)


class _Tokens:
    def __init__(self, text: str) -> None:
        self.items = [
            t for t in Tokenizer(dialect="snowflake").tokenize(text) if t.token_type != TokenType.SEMICOLON
        ]
        self.at = 0

    def peek(self, offset: int = 0) -> Token | None:
        i = self.at + offset
        return self.items[i] if i < len(self.items) else None

    def word(self, offset: int = 0) -> str:
        """The upper-case text of an unquoted token ('' at the end or for a quoted one)."""
        token = self.peek(offset)
        if token is None or token.token_type in (TokenType.STRING, TokenType.IDENTIFIER):
            return ""
        return token.text.upper()

    def accept(self, *words: str) -> bool:
        if all(self.word(i) == w for i, w in enumerate(words)):
            self.at += len(words)
            return True
        return False

    def expect(self, *words: str) -> None:
        if not self.accept(*words):
            found = self.peek()
            raise SyntaxError_(
                f"syntax error line 1 at position {found.col if found else 0} unexpected "
                f"'{found.text if found else '<EOF>'}'. Expected {' '.join(words)}.",
                code=1003,
            )

    def name(self) -> list[str]:
        """A possibly qualified identifier, each part case-normalised."""
        parts = [self._part()]
        while self.peek() is not None and self.peek().token_type == TokenType.DOT:  # type: ignore[union-attr]
            self.at += 1
            parts.append(self._part())
        return parts

    def _part(self) -> str:
        token = self.peek()
        if token is None or token.token_type in (TokenType.STRING, TokenType.DOT, TokenType.COMMA):
            raise SyntaxError_("syntax error line 1: an identifier was expected.", code=1003)
        self.at += 1
        return token.text if token.token_type == TokenType.IDENTIFIER else token.text.upper()

    def string(self) -> str:
        token = self.peek()
        if token is None or token.token_type != TokenType.STRING:
            raise SyntaxError_("syntax error line 1: a string was expected.", code=1003)
        self.at += 1
        return token.text

    def done(self) -> bool:
        return self.at >= len(self.items)


def parse(text: str) -> AccessStatement | None:
    """The statement when it is an access-control one; None for any other statement."""
    t = _Tokens(text)
    if t.accept("CREATE"):
        replace = t.accept("OR", "REPLACE")
        if not t.accept("ROLE"):
            return None
        if_not_exists = t.accept("IF", "NOT", "EXISTS")
        name = _one(t.name())
        comment = t.string() if t.accept("COMMENT") and (t.accept("=") or True) else None
        return _end(t, RoleDdl("CREATE", name, replace, if_not_exists, comment=comment))
    if t.accept("DROP", "ROLE"):
        if_exists = t.accept("IF", "EXISTS")
        return _end(t, RoleDdl("DROP", _one(t.name()), if_exists=if_exists))
    if t.accept("DROP", "USER"):
        if_exists = t.accept("IF", "EXISTS")
        return _end(t, DropUser(_one(t.name()), if_exists))
    if t.accept("ALTER", "USER"):
        t.accept("IF", "EXISTS")
        name = _one(t.name())
        if t.accept("SET", "DEFAULT_ROLE"):
            t.accept("=")
            return _end(t, AlterUser(name, _one(t.name())))
        if t.accept("UNSET", "DEFAULT_ROLE"):
            return _end(t, AlterUser(name, None, unset=True))
        return None
    if t.accept("GRANT"):
        return _grant(t)
    if t.accept("REVOKE"):
        return _revoke(t)
    if t.word() == "SHOW":  # the tokenizer keeps the rest of a SHOW as one string: tokenize it
        return _show(_Tokens(text.strip()[4:]))
    return None


def _show(t: _Tokens) -> AccessStatement | None:
    if t.accept("ROLES") or t.accept("USERS"):
        show_roles = t.items[0].text.upper() == "ROLES"
        like = t.string() if t.accept("LIKE") else None
        return _end(t, ShowRoles(like) if show_roles else ShowUsers(like))
    if t.accept("GRANTS"):
        return _show_grants(t)
    return None


def _role_grant(t: _Tokens, grant: bool) -> RoleGrant:
    """The rest of GRANT ROLE r TO USER|ROLE x / REVOKE ROLE r FROM USER|ROLE x."""
    role = _one(t.name())
    t.expect("TO" if grant else "FROM")
    kind = "USER" if t.accept("USER") else "ROLE" if t.accept("ROLE") else ""
    if not kind:
        t.expect("ROLE")
    return _end(t, RoleGrant(grant, role, kind, _one(t.name())))


def _grant(t: _Tokens) -> AccessStatement:
    if t.accept("ROLE"):
        return _role_grant(t, grant=True)
    if t.accept("OWNERSHIP"):
        t.expect("ON")
        target = _target(t)
        t.expect("TO")
        t.accept("ROLE")
        role = _one(t.name())
        copy = t.accept("COPY", "CURRENT", "GRANTS")
        t.accept("REVOKE", "CURRENT", "GRANTS")
        return _end(t, OwnershipGrant(target, role, copy))
    privileges = _privileges(t)
    t.expect("ON")
    target = _target(t)
    t.expect("TO")
    t.accept("ROLE")
    role = _one(t.name())
    grant_option = t.accept("WITH", "GRANT", "OPTION")
    return _end(t, PrivilegeGrant(True, privileges, target, role, grant_option))


def _revoke(t: _Tokens) -> AccessStatement:
    if t.accept("ROLE"):
        return _role_grant(t, grant=False)
    option_only = t.accept("GRANT", "OPTION", "FOR")
    privileges = _privileges(t)
    t.expect("ON")
    target = _target(t)
    t.expect("FROM")
    t.accept("ROLE")
    role = _one(t.name())
    t.accept("CASCADE") or t.accept("RESTRICT")
    return _end(t, PrivilegeGrant(False, privileges, target, role, option_only))


def _privileges(t: _Tokens) -> list[str]:
    if t.accept("ALL"):
        t.accept("PRIVILEGES")
        return ["ALL"]
    found = []
    while True:
        first = t.word()
        if not first or first == "ON":
            raise SyntaxError_("syntax error line 1: a privilege was expected.", code=1003)
        t.at += 1
        if first in _TWO_WORDS and t.word() in _TWO_WORDS[first]:
            second = t.word()
            t.at += 1
            for word in _LAST_WORDS.get(second, ()):
                t.expect(word)
            first = " ".join((first, second, *_LAST_WORDS.get(second, ())))
        found.append(first)
        if not t.accept(","):
            return found


def _target(t: _Tokens) -> Target:
    if t.accept("ACCOUNT"):
        return Target("ACCOUNT")
    for plural, kind in (("TABLES", "TABLE"), ("VIEWS", "VIEW"), ("SCHEMAS", "SCHEMA")):
        if t.accept("ALL", plural, "IN"):
            container = "SCHEMA" if t.accept("SCHEMA") else "DATABASE" if t.accept("DATABASE") else ""
            if not container:
                t.expect("SCHEMA")
            return Target(kind, t.name(), every=container)
        if t.accept("FUTURE", plural):
            raise Unsupported(f"GRANT ... ON FUTURE {plural} is not supported yet.")
    kind = t.word()
    if kind == "ICEBERG":
        t.at += 1
        kind = t.word()
    if kind not in _OBJECT_KINDS or kind == "ACCOUNT":
        raise Unsupported(f"Privileges on {kind or 'this object'} are not supported yet.")
    t.at += 1
    if kind in ("ROLE", "USER"):
        raise Unsupported(f"Privileges on a {kind.lower()} are not supported yet.")
    return Target(kind, t.name())


def _show_grants(t: _Tokens) -> ShowGrants:
    if t.done():
        return ShowGrants("CURRENT")
    if t.accept("ON"):
        return _end(t, ShowGrants("ON", target=_target(t)))
    if t.accept("TO", "ROLE"):
        return _end(t, ShowGrants("TO_ROLE", name=_one(t.name())))
    if t.accept("TO", "USER"):
        return _end(t, ShowGrants("TO_USER", name=_one(t.name())))
    if t.accept("OF", "ROLE"):
        return _end(t, ShowGrants("OF_ROLE", name=_one(t.name())))
    raise Unsupported("This form of SHOW GRANTS is not supported yet.")


def _one(parts: list[str]) -> str:
    if len(parts) != 1:
        raise SyntaxError_(
            f"Invalid name '{'.'.join(parts)}': roles and users have one-part names.", code=1003
        )
    return parts[0]


def _end(t: _Tokens, statement: AccessStatement) -> AccessStatement:
    if not t.done():
        found = t.peek()
        assert found is not None
        raise SyntaxError_(
            f"syntax error line 1 at position {found.col} unexpected '{found.text}'.", code=1003
        )
    return statement
