// The user's home for the files we keep there (the run lock, the storage, install records). An
// empty or relative HOME (`HOME= fix-until-green …`) would put them in whatever folder a command
// runs in, possibly the user's project (issue 36): such a HOME is not used, the account's own home
// (the password database's) is. Where the user named a home for a host's settings (`hooks install
// --scope user`), a bad HOME is an error instead, never a guess.
import * as os from 'node:os';
import * as path from 'node:path';

/** HOME when it is an absolute path, else the account's home; throws when neither is absolute. */
export function homeDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME !== undefined ? env.HOME : os.homedir();
  if (home !== '' && path.isAbsolute(home)) return home;
  const account = os.userInfo().homedir;
  if (account !== '' && path.isAbsolute(account)) return account;
  throw new Error(`HOME is ${home === '' ? 'empty' : `"${home}", not an absolute path`} and the account has no home directory: set HOME to an absolute path`);
}

/**
 * The folder every workspace's storage folder is in (`FIX_UNTIL_GREEN_STORAGE`, else the XDG state
 * home's `fix-until-green`), shared by the CLI and the extension's installs.
 */
export function stateDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.FIX_UNTIL_GREEN_STORAGE ?? path.join(env.XDG_STATE_HOME ?? path.join(homeDirectory(env), '.local', 'state'), 'fix-until-green'));
}

/** Where `hooks install` keeps, per host file, what uninstall needs to give the file's bytes back. */
export function hookInstallRecordDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateDirectory(env), 'hook-installs');
}
