"""Amazon EKS in the sandbox, beyond moto: cluster lifecycle and endpoints, access entries, add-ons and Pod Identity.

moto serves EKS's REST API from a URL table; :mod:`~sandbox.aws.eks.clusters` patches moto's cluster backend,
the other modules add their routes to that table (:mod:`~sandbox.aws.eks.rest`), so boto3 calls reach them
exactly as they would reach EKS.
"""
