/**
 * Submit from a recipe (`/clusters/{tag}/jobs?action=recipe&recipe=<name>`): choose one of the API's recipes
 * (`GET /recipes`), then fill its form (`RecipeForm`, prefilled from `GET /recipes/{name}`'s last values). The chosen
 * recipe is in the URL, so the form is a permalink.
 */
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Select from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Spinner from "@cloudscape-design/components/spinner";
import { unwrap } from "../../../api/client";
import { useApp } from "../../../app-context";
import { ErrorAlert } from "../../../components/ErrorAlert";
import { useResource } from "../../../hooks/useResource";
import { useQueryParam } from "../../cluster/query";
import { RecipeForm } from "./RecipeForm";

export function SubmitFromRecipe({ clusterTag, onCancel }: { clusterTag: string; onCancel: () => void }) {
  const { api } = useApp();
  const [chosen, choose] = useQueryParam("recipe");
  const recipes = useResource((signal) => unwrap(api.GET("/recipes", { signal })), [api]);
  const recipe = useResource(
    (signal) => (chosen ? unwrap(api.GET("/recipes/{recipeName}", { params: { path: { recipeName: chosen } }, signal })) : Promise.resolve(undefined)),
    [api, chosen],
  );
  const options = (recipes.data?.recipes ?? []).map((summary) => ({ value: summary.name, label: summary.title, description: summary.description }));
  return (
    <SpaceBetween size="m">
      <Header variant="h1" description={`A job on cluster ${clusterTag} from a recipe: a typed form that renders to a HyperPodPyTorchJob.`}>
        Submit from a recipe
      </Header>
      <ErrorAlert error={recipes.error} header="Recipes could not be listed" />
      <FormField label="Recipe">
        <Select
          ariaLabel="Recipe"
          placeholder="Choose a recipe"
          statusType={recipes.loading ? "loading" : "finished"}
          selectedOption={options.find((option) => option.value === chosen) ?? null}
          options={options}
          onChange={({ detail }) => choose(detail.selectedOption.value ?? null)}
        />
      </FormField>
      <ErrorAlert error={recipe.error} header="The recipe could not be read" />
      {chosen && recipe.loading && <Spinner />}
      {recipe.data && !recipe.loading && <RecipeForm key={recipe.data.name} clusterTag={clusterTag} recipe={recipe.data} onCancel={onCancel} />}
    </SpaceBetween>
  );
}
