// A failure the operator can fix (a missing flag, an unknown email): rally-cli.ts prints its message
// alone and exits 2, where any other error prints its stack and exits 1.
export class CommandError extends Error {
  override name = 'CommandError';
}
