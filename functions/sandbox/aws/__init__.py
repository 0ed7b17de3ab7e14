"""The sandbox's AWS account: moto, plus one module or package per service where moto falls short.

Each extension says what it simulates and installs itself on moto (patched backend or response methods, or
routes in moto's URL table) through :class:`sandbox.aws.patches.Patches`, which also takes it off again.
"""
