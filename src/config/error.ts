/** A variable of the environment that Parley cannot start with; the message names it and says why. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly variable: string;
  constructor(variable: string, problem: string) {
    super(`${variable} ${problem}`);
    this.variable = variable;
  }
}
