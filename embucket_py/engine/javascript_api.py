"""The `snowflake` object a JavaScript procedure sees, as JavaScript run before its body.

A procedure's statements cross into Python through one function, `__sf_py_sql(request JSON) ->
answer JSON` (engine/javascript.py); a function's rows come in batches to `__sf_rows`. Values
travel as JSON, each column's `kind` saying how its cells become JavaScript values (a DATE or
TIMESTAMP is milliseconds since the epoch made a Date, a BINARY a byte list made a Uint8Array, a
non-finite FLOAT its text made a Number).
https://docs.snowflake.com/en/sql-reference/stored-procedures-api
"""

PRELUDE = r"""
// A SQL NULL is null in a result set and undefined as an argument, as Snowflake passes it.
function __sf_value(kind, v, missing) {
  if (v === null || v === undefined) return missing;
  if (kind === "variant") return JSON.parse(v);
  if (kind === "date") return new Date(v);
  if (kind === "binary") return new Uint8Array(v);
  if (kind === "real" && typeof v === "string") return Number(v);
  return v;
}

function __sf_fail(message) {
  var e = new Error(message);
  e.code = 100183;
  e.state = "P0000";
  e.stackTraceTxt = message;
  throw e;
}

function __sf_bind(b) {
  if (b === null || b === undefined) return { kind: "null", value: null };
  if (typeof b === "number") {
    if (!isFinite(b)) return { kind: "real", value: String(b) };
    return { kind: Number.isInteger(b) ? "integer" : "real", value: b };
  }
  if (typeof b === "string") return { kind: "text", value: b };
  if (typeof b === "boolean") return { kind: "boolean", value: b };
  if (b instanceof Date) return { kind: "date", value: b.getTime() };
  __sf_fail("Invalid binds argument" + String(b) + ". Error: Unsupported type.");
}

function __sf_sql(sqlText, binds) {
  if (sqlText === undefined || sqlText === null || String(sqlText).trim() === "") {
    __sf_fail("Argument sqlText of the statement is missing or empty.");
  }
  var request = { sqlText: String(sqlText), binds: (binds || []).map(__sf_bind) };
  var answer = JSON.parse(__sf_py_sql(JSON.stringify(request)));
  if (answer.error) {
    var e = new Error(answer.error.message);
    e.code = answer.error.code;
    e.state = answer.error.state;
    e.stackTraceTxt = "At Statement.execute";
    e.__sf_statement = true;
    throw e;
  }
  return answer;
}

function __SfColumns(answer) {
  this.answer = answer;
}
__SfColumns.prototype.index = function (c) {
  var columns = this.answer.columns;
  if (typeof c === "number") {
    if (c >= 1 && c <= columns.length && Math.floor(c) === c) return c - 1;
    __sf_fail("Given index " + c + " is out of range [1, " + columns.length + "].");
  }
  var name = String(c);
  for (var i = 0; i < columns.length; i++) if (columns[i].name === name) return i;
  var upper = name.toUpperCase();
  for (var j = 0; j < columns.length; j++) if (columns[j].name.toUpperCase() === upper) return j;
  __sf_fail("Given column name/index does not exist: " + name);
};

function __sf_column(self, c) {
  var answer = self._answer();
  return answer.columns[new __SfColumns(answer).index(c)];
}

function __sf_describe(target) {
  target.getColumnCount = function () { return this._answer().columns.length; };
  target.getColumnName = function (c) { return __sf_column(this, c).name; };
  target.getColumnSqlType = function (c) { return __sf_column(this, c).sql; };
  target.getColumnType = target.getColumnSqlType;
  target.getColumnScale = function (c) { return __sf_column(this, c).scale; };
  target.isColumnNullable = function () { return true; };
  target.isColumnText = function (c) { return __sf_column(this, c).kind === "text"; };
  target.getRowCount = function () { return this._answer().rows.length; };
  target.getQueryId = function () { return this._answer().queryId; };
  target.getNumRowsAffected = function () { return this._answer().affected.total; };
  target.getNumRowsInserted = function () { return this._answer().affected.inserted; };
  target.getNumRowsUpdated = function () { return this._answer().affected.updated; };
  target.getNumRowsDeleted = function () { return this._answer().affected.deleted; };
  target.getNumDuplicateRowsUpdated = function () { return 0; };
}

function ResultSet(answer, sqlText) {
  this.__answer = answer;
  this.__sqlText = sqlText;
  this.__row = -1;
}
ResultSet.prototype._answer = function () { return this.__answer; };
__sf_describe(ResultSet.prototype);
ResultSet.prototype.getSqlText = function () { return this.__sqlText; };
ResultSet.prototype.next = function () {
  if (this.__row < this.__answer.rows.length) this.__row++;
  return this.__row < this.__answer.rows.length;
};
ResultSet.prototype.__cell = function (c) {
  if (this.__row < 0 || this.__row >= this.__answer.rows.length) {
    __sf_fail("ResultSet is empty or not prepared (call next() first).");
  }
  return new __SfColumns(this.__answer).index(c);
};
ResultSet.prototype.getColumnValue = function (c) {
  var i = this.__cell(c);
  return __sf_value(this.__answer.columns[i].kind, this.__answer.rows[this.__row][i], null);
};
ResultSet.prototype.getColumnValueAsString = function (c) {
  var i = this.__cell(c);
  var text = this.__answer.texts[this.__row][i];
  return text === null ? "" : text;
};

function Statement(command) {
  this.__sqlText = command.sqlText;
  this.__binds = command.binds || [];
  this.__last = null;
}
Statement.prototype._answer = function () {
  if (this.__last === null) __sf_fail("Statement has not been executed yet.");
  return this.__last;
};
__sf_describe(Statement.prototype);
Statement.prototype.getSqlText = function () { return this.__sqlText; };
Statement.prototype.execute = function () {
  this.__last = __sf_sql(this.__sqlText, this.__binds);
  return new ResultSet(this.__last, this.__sqlText);
};

var snowflake = {
  createStatement: function (command) {
    if (command === null || typeof command !== "object") {
      __sf_fail("Argument of createStatement must be an object.");
    }
    return new Statement(command);
  },
  execute: function (command) { return snowflake.createStatement(command).execute(); },
  addEvent: function () {},
  setSpanAttribute: function () {},
  log: function () {}
};

function __sf_out(v) {
  if (v === null || v === undefined) return { kind: "null", value: null, text: null };
  if (v instanceof Date) return { kind: "date", value: v.getTime(), text: v.toISOString() };
  if (v instanceof Uint8Array) return { kind: "binary", value: Array.from(v), text: String(v) };
  if (typeof v === "number") return { kind: "real", value: isFinite(v) ? v : String(v), text: String(v) };
  if (typeof v === "object") return { kind: "json", value: JSON.stringify(v), text: String(v) };
  return { kind: typeof v, value: v, text: String(v) };
}

function __sf_rows(kindsJson, rowsJson, strict) {
  var kinds = JSON.parse(kindsJson), rows = JSON.parse(rowsJson), out = [];
  for (var r = 0; r < rows.length; r++) {
    var row = rows[r];
    if (strict && row.indexOf(null) >= 0) {
      out.push(null);
      continue;
    }
    var args = row.map(function (v, i) { return __sf_value(kinds[i], v, undefined); });
    try {
      out.push(__sf_out(__sf_procedure.apply(null, args)));
    } catch (e) {
      return JSON.stringify({ error: String(e) });
    }
  }
  return JSON.stringify({ values: out });
}

function __sf_main(kinds, values) {
  var args = values.map(function (v, i) { return __sf_value(kinds[i], v, undefined); });
  try {
    return JSON.stringify({ ok: __sf_out(__sf_procedure.apply(null, args)) });
  } catch (e) {
    var statement = e !== null && typeof e === "object" && e.__sf_statement === true;
    return JSON.stringify({
      error: {
        text: String(e),
        message: e !== null && typeof e === "object" && "message" in e ? String(e.message) : String(e),
        code: statement ? e.code : null,
        state: statement ? e.state : null
      }
    });
  }
}
"""
