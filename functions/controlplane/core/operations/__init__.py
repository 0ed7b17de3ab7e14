"""The operations context: every long-running request is an operation whose workflow advances it.

`service` starts, observes, resumes and cancels operations and is the only place a workflow is started;
`inputs` builds the workflow input from the cluster's record (the only place one is built); `transitions`
holds the rules by which an operation and its stages move (pure functions, no I/O).
"""
