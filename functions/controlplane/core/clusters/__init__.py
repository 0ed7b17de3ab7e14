"""The clusters context: a cluster's lifecycle as callers see it, composing pre-flight and the stage contexts.

`lifecycle` registers a cluster (stage 1, the one-request pipeline, import) and deletes it (plan, then
confirm); `stage_requests` starts stages 3-5 on a registered cluster; `import_plan` and `deletion_plan`
are the rules and plans of import and delete; `import_steps` are the import workflow's steps and the
release of an imported cluster on delete. Reading the registry is `core.registry`'s, below every context that
looks a cluster up.
"""
