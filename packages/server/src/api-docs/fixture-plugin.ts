import type { Plugin, Route } from '@parley/plugin-sdk';

const ok: Route['handler'] = (_req, res) => res.json({ success: true });

/**
 * For the documents' tests: a plugin with a route of every kind the documents describe (named and anonymous,
 * public, multipart, with a path parameter, a static folder).
 */
export function fixturePlugin(name: string, staticFolder: string): Plugin {
  return {
    name,
    routes: [
      { type: 'POST', path: '/fixture/hooks/:hookId', name: 'fixture-hook', handler: ok },
      { type: 'GET', path: '/fixture/open', public: true, handler: ok },
      { type: 'POST', path: '/fixture/upload', isMultipart: true, handler: ok },
      { type: 'DELETE', path: '/fixture/things/:id', handler: ok },
      { type: 'STATIC', path: '/fixture/static', filePath: staticFolder },
    ],
  };
}
