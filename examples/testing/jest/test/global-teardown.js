/** Jest globalTeardown: closes the server global-setup.js started. */
export default async function globalTeardown() {
  await globalThis.eddy.close();
}
