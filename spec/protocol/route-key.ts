/**
 * Compares routes across notations: protocol.md writes `{c}` and
 * `{path...}`, the route table `:collection` (and, for a rest parameter,
 * whatever the table will use: `*` or `:name*`). Names do not matter, only
 * method, literal segments and where the parameters are.
 */

/** `PUT /api/update/:/:` for `PUT /api/update/{c}/{id}` and `PUT /api/update/:collection/:id` alike. */
export function routeKey(method: string, path: string): string {
  const segments = path.split('/').map((s) => {
    if (s === '*' || /^\{\w+\.\.\.\}$/.test(s) || /^:\w+[*+]$/.test(s)) return '*';
    if (/^\{\w+\}$/.test(s) || /^:\w+$/.test(s)) return ':';
    return s;
  });
  return `${method} ${segments.join('/')}`;
}
