/** Deleting a self-managed model server: the API's plan (its Deployment, pods and Services), the server's name typed to
 * confirm, then the delete with the plan's token. */
import { unwrap } from "../../api/client";
import { useApp } from "../../app-context";
import { usePlannedAction } from "../cluster/plan";

export function useDeleteModelServer(clusterTag: string, onDeleted: () => void) {
  const { api, identity } = useApp();
  const planned = usePlannedAction(onDeleted);
  const start = (name: string) => {
    const path = { clusterTag, name };
    planned.start({
      header: `Delete model server ${name}`,
      confirmLabel: "Delete model server",
      typeToConfirm: name,
      plan: () => unwrap(api.DELETE("/clusters/{clusterTag}/deployments/{name}", { params: { path } })),
      run: (confirmationToken) =>
        unwrap(api.DELETE("/clusters/{clusterTag}/deployments/{name}", { params: { path, query: { confirmationToken } } })),
    });
  };
  return { allowed: identity.mayCall("DELETE /clusters/{clusterTag}/deployments/{name}"), start, modal: planned.modal };
}
