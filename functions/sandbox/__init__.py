"""The local runtime (`make run`): real handlers and workflows on moto and a Kubernetes emulator.

Never shipped to Lambda and never imported by Lambda code.
"""
