"""The base of our migrations: Tortoise's, less a copy of the whole schema state per operation
where the operation never reads it.

Before each operation Tortoise clones the state (every model class rebuilt) so the operation can
compare before and after; with 19 migrations of about 120 operations that was nearly all of a
first `commerce migrate` (7 s of CPU idle, minutes on a busy machine). Creating a table or adding
a column reads only the state after, and running SQL or Python changes no state (before is after),
so those go without the copy; every other operation still gets it."""

from __future__ import annotations

from tortoise import migrations
from tortoise.migrations import operations as ops
from tortoise.migrations.schema_editor.base import BaseSchemaEditor
from tortoise.migrations.schema_generator.state import State

__all__ = ["Migration", "PerDialect"]

_READ_ONLY_THE_NEW_STATE = (ops.CreateModel.database_forward, ops.AddField.database_forward)
_CHANGE_NO_STATE = (ops.RunSQL.state_forward, ops.RunPython.state_forward)


def _needs_old_state(operation: ops.Operation) -> bool:
    kind = type(operation)
    if kind.database_forward in _READ_ONLY_THE_NEW_STATE or kind.state_forward in _CHANGE_NO_STATE:
        return False
    return getattr(operation, "reads_old_state", True)


class Migration(migrations.Migration):
    async def apply(self, state: State, *, dry_run: bool = False, schema_editor: BaseSchemaEditor | None = None,
                    collect_sql: bool = False) -> State:
        if dry_run or collect_sql or schema_editor is None:
            return await super().apply(state, dry_run=dry_run, schema_editor=schema_editor, collect_sql=collect_sql)
        transactional = schema_editor.client.capabilities.supports_transactions
        for operation in self.operations:
            old_state = state.clone() if _needs_old_state(operation) else state
            operation.state_forward(self.app_label, state)
            await self._run_database_forward(operation, old_state, state, schema_editor, transactional)
        state.validate_relations_initialized()
        return state


class PerDialect(ops.RunSQL):
    """PostgreSQL's statements, or SQLite's (`sqlite_sql`, `sqlite_reverse_sql`) on SQLite, each
    run whole: Tortoise's SQLite editor splits on ";", which would cut a trigger's body."""

    def __init__(self, sql, reverse_sql, sqlite_sql, sqlite_reverse_sql) -> None:
        super().__init__(sql, reverse_sql=reverse_sql)
        self.sqlite = {id(sql): sqlite_sql, id(reverse_sql): sqlite_reverse_sql}

    async def _run_sql(self, state_editor, sqls) -> None:
        if state_editor.client.capabilities.dialect != "sqlite":
            return await super()._run_sql(state_editor, sqls)
        for sql in self.sqlite[id(sqls)]:
            if state_editor.collect_sql:
                state_editor.collected_sql.append(sql)
            else:
                await state_editor.client.execute_query(sql)
