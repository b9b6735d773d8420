/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<Error & Record<string, any>> {
  try {
    await p;
  } catch (err) {
    return err as Error & Record<string, any>;
  }
  throw new Error('expected a rejection');
}
