/**
 * A hono path in OpenAPI's syntax, with the names of its parameters: `/a/:id` → `/a/{id}`. A parameter's
 * regex (`:id{[0-9]+}`) and optional mark (`:id?`) are dropped: OpenAPI has neither.
 */
export function toOpenApiPath(path: string): { path: string; parameters: string[] } {
  const parameters: string[] = [];
  const converted = path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?\??/g, (_match, name: string) => {
    parameters.push(name);
    return `{${name}}`;
  });
  return { path: converted, parameters };
}
