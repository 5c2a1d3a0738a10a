/** Errors the CLI reports as one clean line with an exit code, never a stack trace. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
    this.name = "CliError";
  }
}

export const usageError = (message: string) => new CliError(message, 2);
