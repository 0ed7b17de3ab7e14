"""The CDK app's stacks and constructs. Imported by app.py only; never shipped to Lambda."""
