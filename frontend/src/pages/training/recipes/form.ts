/**
 * A recipe's typed form as data: the field each parameter of the recipe's schema becomes (no per-recipe code, so a
 * new recipe file shows up as a form), the values it starts from (the person's last values for the recipe, else the
 * defaults) and the `SubmitRecipeJobRequest` the filled form sends.
 */
import type { Schemas } from "../../../api/client";
import { NO_TEAM, teamFields, type TeamChoice } from "../../../components/TeamPicker";

export type Parameter = Schemas["RecipeParameter"];
export type Recipe = Schemas["RecipeSummary"];
type Value = boolean | number | string;

/** The control a parameter is edited with. */
export type Control = "text" | "number" | "checkbox" | "select";

/** A parameter's field: its control, label, hint and, for a select, its options. */
export interface Field {
  name: string;
  control: Control;
  label: string;
  description: string;
  required: boolean;
  options: string[];
}

/** Form values by parameter name: text for inputs and selects, a boolean for checkboxes. */
export type RecipeValues = Record<string, string | boolean>;

export interface Placement {
  kind: "instanceType" | "instanceGroup";
  on: string;
}

/** Optional MLflow tracking: a tracking server's name and an experiment; an empty server means none. */
export interface Tracking {
  trackingServer: string;
  experiment: string;
}

export const NO_TRACKING: Tracking = { trackingServer: "", experiment: "" };

/** "learningRate" → "Learning rate". */
export function label(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function fieldOf(parameter: Parameter): Field {
  const control: Control =
    parameter.type === "boolean"
      ? "checkbox"
      : parameter.type === "enum"
        ? "select"
        : parameter.type === "integer" || parameter.type === "number"
          ? "number"
          : "text";
  const bounds = [
    parameter.minimum != null ? `at least ${parameter.minimum}` : null,
    parameter.maximum != null ? `at most ${parameter.maximum}` : null,
  ].filter(Boolean);
  const hint = parameter.type === "s3uri" ? " An S3 URI: s3://bucket/prefix." : bounds.length ? ` ${bounds.join(", ")}.` : "";
  return {
    name: parameter.name,
    control,
    label: label(parameter.name),
    description: `${parameter.description}${hint}`,
    required: parameter.required ?? false,
    options: parameter.choices ?? [],
  };
}

/** Each parameter's starting value: the last value the person submitted the recipe with, else its default. */
export function initialValues(parameters: Parameter[], lastValues: Record<string, unknown> = {}): RecipeValues {
  const values: RecipeValues = {};
  for (const parameter of parameters) {
    const given = parameter.name in lastValues ? lastValues[parameter.name] : parameter.default;
    values[parameter.name] = parameter.type === "boolean" ? given === true : given == null ? "" : String(given);
  }
  return values;
}

/** The typed value of one field, or undefined when it is empty (the API then takes the default or refuses). */
function typed(parameter: Parameter, value: string | boolean): Value | undefined {
  if (parameter.type === "boolean") return value === true;
  const text = String(value).trim();
  if (text === "") return undefined;
  if (parameter.type === "integer" || parameter.type === "number") {
    const number = Number(text);
    return Number.isFinite(number) ? number : text;
  }
  return text;
}

/** The request the form sends: the recipe, the job's name and placement, typed values and, if chosen, MLflow and the
 * team with its priority. */
export function recipeBody(
  recipe: Recipe,
  name: string,
  placement: Placement,
  values: RecipeValues,
  tracking: Tracking = NO_TRACKING,
  team: TeamChoice = NO_TEAM,
): Schemas["SubmitRecipeJobRequest"] {
  const typedValues: Record<string, Value> = {};
  for (const parameter of recipe.parameters) {
    const value = typed(parameter, values[parameter.name] ?? "");
    if (value !== undefined) typedValues[parameter.name] = value;
  }
  return {
    recipe: recipe.name,
    name,
    [placement.kind]: placement.on,
    values: typedValues,
    ...(tracking.trackingServer ? { mlflow: { trackingServer: tracking.trackingServer, experiment: tracking.experiment } } : {}),
    ...teamFields(team),
  } as Schemas["SubmitRecipeJobRequest"];
}

/** The parameter an API refusal names (`details.parameter`), if any, so the refusal shows at its field. */
export function refusedParameter(error: unknown): string | undefined {
  const details = (error as { details?: Record<string, unknown> | null } | undefined)?.details;
  const parameter = details?.parameter;
  return typeof parameter === "string" ? parameter : undefined;
}
