"""Who may do what, as data: the IAM grants of the control plane's Lambda functions and the pieces they share.

A step declares its own grants beside what it runs (`steps/`); the stack gives each step group's role the union of
its steps' grants, and the other functions (API, MCP server, drift, events) their own (`infra/access/`). This package
holds what both sides share: `Grant` and `FunctionAccess` (`grant`), the ownership, boundary and adoption conditions
(`conditions`), and the ARN templates, reasons and grants of each service that more than one function needs. Only
constants here: no SDK, nothing built from the environment, cheap to import (a step's cold start loads it).

Resource templates are ARNs with `{placeholders}`, filled in by the stack (`infra.rendering`):
  {partition} {account} {region}   the deployment's pseudo parameters
  {url_suffix}                     its partition's DNS suffix (AWS::URLSuffix: amazonaws.com, amazonaws.com.cn)
  {deployment}                     the deployment name (context `deploymentName`): it starts the IAM names the
                                   steps create and is the value of their ownership tag
  {kubernetes_role_arn}            the role whose identity signs the steps' EKS bearer tokens (cluster admin)
  {kubernetes_view_role_arn}       the role whose identity signs the API's EKS bearer tokens (view only)
  {kubernetes_jobs_role_arn}       the role whose identity signs the API's job writes (job writers' group)
  {workload_boundary_arn}          the permissions boundary of workload (IRSA) roles
  {service_boundary_arn}           the permissions boundary of the roles AWS services and operators assume
  {autoscaling_boundary_arn}       the permissions boundary of HyperPod autoscaling roles
  {state_machine_arn}              every workflow's state machine ARN (one resource per workflow)
  {state_machine_name}             every workflow's state machine name (one resource per workflow)
  {event_forwarding_role_arn}      the role EventBridge assumes to put other Regions' HyperPod events on the home bus
  {rest_api_id} {stage}            the REST API and its stage
Regions are `*` for the resources the steps create: each cluster lives in the Region its request names.

Conventions (see shared/reference/reliability.md §2.3):
- `Resource: "*"` only for actions that have no resource-level permissions (`grant.NO_RESOURCE_LEVEL`).
- EC2 creates require the ownership tag in the request (`aws:RequestTag`); EC2 changes and deletes require it on the
  resource (`aws:ResourceTag`); `ec2:CreateTags` only while creating (`ec2:CreateAction`).
- IAM and EKS names are scoped by the deterministic names of `controlplane.core.naming`; what the steps create
  carries the deployment's ownership tags (its name and Region), which the conditions require. Every role a step
  creates carries one of the stack's permissions boundaries: `iam:CreateRole`, `iam:AttachRolePolicy` and
  `iam:PutRolePolicy` are allowed only with `iam:PermissionsBoundary` equal to it.
- Bucket actions carry `s3:ResourceAccount` = this account: a bucket of our name in another account is never read or
  written.
- Imported clusters keep their own names. EKS reads (Describe/List) name any cluster of the account; EKS changes on an
  imported cluster require the `instantstart:cluster` tag on it, which only the import workflow adds (tag keys limited
  to that one); sub-resources the steps create carry the ownership tags and are deleted only with them. EC2 children
  (compute subnets, route table) may be created in a VPC that carries the `instantstart:cluster` tag (an adopted VPC)
  as well as in our own.
DynamoDB access is not a grant: the stack grants `grant.DYNAMODB_ACTIONS` on the tables each function names in
`FunctionAccess.tables` (table ARN plus the ARNs of its named indexes).
"""
