import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { type GoalLoopsConfig, GoalLoopsConfigSchema } from "./goal-loops-config";
import { ConfigError, parseSettings } from "./parse-settings";

/** The configuration file's name, at the project's root. */
export const CONFIG_FILE_NAME = "goal-loops.config.json";

/**
 * Reads and validates a configuration file. A file that is not JSON, or a field that is wrong,
 * throws a ConfigError naming the file and each bad field's path, what it expected and what it got.
 */
export function loadConfigFile(file: string): GoalLoopsConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(
      `${file}: cannot be read (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file}: not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseSettings(GoalLoopsConfigSchema, value, file);
}

/**
 * The configuration an app synthesizes with: the file `-c config=<path>` names (relative to the
 * working directory), else `goal-loops.config.json` in `projectDir` when there is one, else every
 * default. A named file that does not exist is an error, never a silent default.
 */
export function resolveConfig(options: { readonly projectDir: string; readonly configPath?: unknown }): {
  readonly config: GoalLoopsConfig;
  readonly source: string;
} {
  const { projectDir, configPath } = options;
  if (configPath !== undefined) {
    if (typeof configPath !== "string" || configPath.trim() === "") {
      throw new ConfigError(`-c config= must name a configuration file; got ${JSON.stringify(configPath)}`);
    }
    const file = path.resolve(configPath);
    if (!existsSync(file))
      throw new ConfigError(`${file}: no such configuration file (-c config=${configPath})`);
    return { config: loadConfigFile(file), source: file };
  }
  const file = path.join(projectDir, CONFIG_FILE_NAME);
  if (existsSync(file)) return { config: loadConfigFile(file), source: file };
  return { config: parseSettings(GoalLoopsConfigSchema, {}, "defaults"), source: "defaults" };
}
