/**
 * Cycles in a module graph, for spec/architecture.spec.ts. Tarjan's algorithm
 * finds the strongly connected components; each component with more than one
 * file (or a file importing itself) is a circle. A component can hold many
 * elementary cycles (exponentially many in the worst case), so instead of
 * enumerating them all this reports, for every file of a component, the
 * shortest cycle through it: few lines, and every file of the circle appears
 * in one of them.
 */

/** Edges from each file to the files it imports. */
export type ImportGraph = ReadonlyMap<string, ReadonlySet<string>>;

/** Strongly connected components with a cycle, each sorted, in order of their first file. */
export function cyclicComponents(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;

  // Recursive Tarjan: lib/ import chains are a few dozen files deep at most.
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.has(v)) found.push(component.sort());
  };

  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest path `start -> ... -> start` that stays inside `within` (breadth-first). */
export function shortestCycleThrough(graph: ImportGraph, start: string, within: ReadonlySet<string>): string[] {
  const cameFrom = new Map<string, string>();
  let frontier = [start];
  while (frontier.length > 0) {
    const following: string[] = [];
    for (const v of frontier) {
      for (const w of [...(graph.get(v) ?? [])].sort()) {
        if (!within.has(w)) continue;
        if (w === start) return [...pathTo(cameFrom, start, v), start];
        if (cameFrom.has(w)) continue;
        cameFrom.set(w, v);
        following.push(w);
      }
    }
    frontier = following;
  }
  throw new Error(`${start} is in a strongly connected component but on no cycle`);
}

function pathTo(cameFrom: ReadonlyMap<string, string>, start: string, end: string): string[] {
  const path = [end];
  while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
  return path;
}

/**
 * Every cycle of the graph as `a -> b -> ... -> a` lines: per component, the
 * shortest cycle through each of its files, duplicates (the same cycle found
 * from another of its files) removed.
 */
export function describeCycles(graph: ImportGraph): string[] {
  const lines: string[] = [];
  for (const component of cyclicComponents(graph)) {
    const within = new Set(component);
    const seen = new Set<string>();
    for (const file of component) {
      const cycle = shortestCycleThrough(graph, file, within);
      const key = canonical(cycle.slice(1)).join(' ');
      if (seen.has(key)) continue;
      seen.add(key);
      lines.push(cycle.join(' -> '));
    }
  }
  return lines;
}

/** A cycle's members rotated to start at the smallest name, so one cycle found from two files compares equal. */
function canonical(members: string[]): string[] {
  let at = 0;
  for (let i = 1; i < members.length; i++) if (members[i]! < members[at]!) at = i;
  return [...members.slice(at), ...members.slice(0, at)];
}
