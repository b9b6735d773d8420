/**
 * The server environment a stored function may read through `{{env.NAME}}`
 * (protocol.md 4.2): only names on the allow-list, which is the union of
 * the startup list (`EDDYDB_FUNCTION_ENV` / `--function-env`) and the
 * run-time setting `function_env_allowlist`. Every failure names the
 * variable and never carries its value.
 */
import { InvalidInput } from '../../errors.js';

export interface FunctionEnv {
  /** True when `{{env.name}}` may read the variable (checked at save and again at each read). */
  allows(name: string): boolean;
  /** The variable's value; InvalidInput naming it when it is not allowed or not set. */
  read(name: string): string;
}

/** Reads nothing: every name is refused. The default when no environment is configured. */
export const NO_FUNCTION_ENV: FunctionEnv = Object.freeze({
  allows: () => false,
  read: (name: string): string => {
    throw notAllowed(name);
  },
});

export interface FunctionEnvSource {
  /** Names allowed for the life of the process (the startup list). */
  readonly startup?: Iterable<string>;
  /** Names allowed by the setting, asked at each check so a change applies at once. */
  readonly current?: () => readonly string[];
  /** Where values come from (the server passes `process.env`; tests their own). */
  readonly variables: Readonly<Record<string, string | undefined>>;
}

export function functionEnv(source: FunctionEnvSource): FunctionEnv {
  const startup = new Set(source.startup ?? []);
  const allows = (name: string): boolean => startup.has(name) || (source.current?.().includes(name) ?? false);
  return Object.freeze({
    allows,
    read(name: string): string {
      if (!allows(name)) throw notAllowed(name);
      const value = Object.hasOwn(source.variables, name) ? source.variables[name] : undefined;
      if (value === undefined || value === '') throw new InvalidInput(`Environment variable '${name}' is not set`);
      return value;
    },
  });
}

/** Splits a comma list of names (`EDDYDB_FUNCTION_ENV=JWT_SECRET, HMAC_KEY`). */
export function parseEnvNameList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function notAllowed(name: string): InvalidInput {
  return new InvalidInput(
    `Environment variable '${name}' is not on the allow-list (function_env_allowlist or EDDYDB_FUNCTION_ENV)`,
  );
}
