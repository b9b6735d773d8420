/**
 * JSON text of wire values, with binary written as arrays of byte numbers
 * (protocol.md 1.4 rule 6). A replacer sees values after `toJSON`, so it
 * reads the original from the holder to catch Buffers before they become
 * `{type: "Buffer", data}`.
 */
export function toJson(value: unknown): string {
  // Fast path: stored bytes are Buffers, whose toJSON gives {"type":"Buffer",...}; only then is the replacer needed.
  const fast = JSON.stringify(value);
  if (fast === undefined || !fast.includes('"type":"Buffer"')) return fast;
  return JSON.stringify(value, function (this: Record<string, unknown>, key, v) {
    const orig = this[key];
    if (orig instanceof Uint8Array) return Array.from(orig);
    return v;
  });
}
