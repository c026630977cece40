import { spawn } from 'node:child_process';

/** No browser can be opened here: an SSH session, or Linux without a display. */
export function isHeadless(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): boolean {
  if (env.SSH_CONNECTION || env.SSH_CLIENT || env.SSH_TTY) return true;
  if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd') return !env.DISPLAY && !env.WAYLAND_DISPLAY;
  return false;
}

/** Tries to open a URL in the user's browser ($BROWSER, else the platform's opener); never fails. */
export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): void {
  const [command, args] = env.BROWSER
    ? [env.BROWSER, [url]]
    : process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // The URL is already on stderr; the user can open it by hand.
  }
}
