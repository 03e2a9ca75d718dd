import { z } from 'zod';

/** Route types: an HTTP method, or STATIC for static file serving. */
export const routeTypeSchema = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'STATIC']);

/** @see routeTypeSchema */
export type RouteType = z.infer<typeof routeTypeSchema>;

const functionSchema = z.custom<(...args: never[]) => unknown>(
  (value) => typeof value === 'function',
  { message: 'must be a function' },
);

/**
 * The shape of a route definition in a plugin's `routes` list. The plugin SDK types the handler fully; this
 * schema checks what a loaded plugin really holds.
 */
export const routeDefinitionSchema = z
  .object({
    type: routeTypeSchema,
    path: z
      .string()
      .regex(/^\/[^\s?#]*$/, 'must start with / and hold no spaces, query or fragment'),
    handler: functionSchema.optional(),
    filePath: z.string().min(1).optional(),
    public: z.boolean().optional(),
    name: z.string().optional(),
    isMultipart: z.boolean().optional(),
    timeoutMs: z.number().int().positive().optional(),
  })
  .superRefine((route, context) => {
    if (route.type === 'STATIC' && !route.filePath) {
      context.addIssue({
        code: 'custom',
        path: ['filePath'],
        message: 'STATIC routes need a filePath',
      });
    }
    if (route.type !== 'STATIC' && !route.handler) {
      context.addIssue({
        code: 'custom',
        path: ['handler'],
        message: `${route.type} routes need a handler`,
      });
    }
  });

/** @see routeDefinitionSchema */
export type RouteDefinitionShape = z.infer<typeof routeDefinitionSchema>;
