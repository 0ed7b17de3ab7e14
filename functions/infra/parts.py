"""How the root stack is made of parts without renaming what it deploys.

A `Part` groups the stack's resources by concern (identities, tables, the REST API, ...). CloudFormation knows a
resource by its logical ID, which CDK derives from the construct path: a resource moved into a part would get a new
one, and an update would replace it (a new table, a new user pool). `PartsStack` leaves its parts out of the path it
derives logical IDs from, with CDK's own rule (`makeUniqueId`, repeated here), so a resource's logical ID is the
same whichever part holds it; two resources of one name in two parts are refused at synth ("section 'Resources'
already contains ..."). Names CDK derives from a construct's full path rather than from logical IDs do change with
a part (a nested stack's parameters, API Gateway's authorizer name, the description of a role's overflow policy):
parameters and properties updated in place, no resource replaced.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from aws_cdk import CfnElement, Stack
from constructs import Construct

# CDK's makeUniqueId (aws-cdk-lib core/lib/private/uniqueid.ts).
HIDDEN_ID = "Default"
HIDDEN_FROM_HUMAN_ID = "Resource"
HASH_LEN = 8
MAX_HUMAN_LEN = 240
MAX_ID_LEN = 255


class Part(Construct):
    """A group of the stack's resources whose id is left out of their logical IDs."""


class PartsStack(Stack):
    """A stack whose parts are transparent to the logical IDs of what they hold.

    CDK asks for an element's logical ID again at every reference it resolves (thousands of times a synthesis), and
    working it out crosses jsii ~20 times; it depends only on the element's path, so it is worked out once."""

    def __init__(self, scope: Construct, construct_id: str, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self._logical_ids: dict[str, str] = {}

    def _allocate_logical_id(self, cfn_element: CfnElement) -> str:
        path = cfn_element.node.path
        if path not in self._logical_ids:
            self._logical_ids[path] = self._logical_id_of(cfn_element)
        return self._logical_ids[path]

    def _logical_id_of(self, cfn_element: CfnElement) -> str:
        stack_path = [scope.node.id for scope in self.node.scopes[1:]]
        full_path, ids = list(stack_path), []
        # An id may embed an ancestor's unique id (API Gateway's invoke permissions embed their REST API's): it
        # names the ancestor as it would be named outside parts.
        renames: dict[str, str] = {}
        for scope in cfn_element.node.scopes[len(self.node.scopes) :]:
            full_path.append(scope.node.id)
            if isinstance(scope, Part):
                continue
            ids.append(scope.node.id)
            if len(full_path) > len(stack_path) + len(ids):
                renames[make_unique_id(full_path)] = make_unique_id(stack_path + ids)
        for with_parts, without in renames.items():
            ids = [construct_id.replace(with_parts, without) for construct_id in ids]
        return make_unique_id(ids)


def make_unique_id(components: list[str]) -> str:
    """CDK's logical ID of a construct path below its stack: the path's ids, alphanumeric, and a hash of the path."""
    components = [component for component in components if component != HIDDEN_ID]
    if len(components) == 1:
        candidate = _alphanumeric(components[0])
        if len(candidate) <= MAX_ID_LEN:
            return candidate
    digest = hashlib.md5("/".join(components).encode(), usedforsecurity=False).hexdigest()[:HASH_LEN].upper()
    deduplicated: list[str] = []
    for component in components:
        if not deduplicated or not deduplicated[-1].endswith(component):
            deduplicated.append(component)
    human = "".join(_alphanumeric(c) for c in deduplicated if c != HIDDEN_FROM_HUMAN_ID)
    return human[:MAX_HUMAN_LEN] + digest


def _alphanumeric(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", text)
