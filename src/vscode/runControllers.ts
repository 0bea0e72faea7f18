// The folders' run controllers (./controller): one per workspace folder, made on first use, and
// which one the status bar and the panel follow (the last one started or focused).
import type { Disposable, RunController } from './controller';

/** One controller per workspace folder, and which one the status bar and the panel follow. */
export class RunControllers {
  private readonly byFolder = new Map<string, RunController>();
  private activeFolder: string | undefined;
  private readonly listeners = new Set<(c: RunController) => void>();
  private readonly subscriptions = new Map<string, Disposable>();

  constructor(private readonly make: (folder: string, folderName: string) => RunController) {}

  get(folder: string, folderName: string): RunController {
    let c = this.byFolder.get(folder);
    if (!c) {
      c = this.make(folder, folderName);
      this.byFolder.set(folder, c);
      const ctl = c;
      this.subscriptions.set(folder, c.onDidChange(() => this.fire(ctl)));
      if (this.activeFolder === undefined) this.activeFolder = folder;
      // A controller restored with its folder's last run is news to the status bar and the panel.
      this.fire(ctl);
    }
    return c;
  }

  find(folder: string): RunController | undefined {
    return this.byFolder.get(folder);
  }

  all(): RunController[] {
    return [...this.byFolder.values()];
  }

  running(): RunController[] {
    return this.all().filter((c) => c.running);
  }

  /** The controller the status bar and the panel show: the last one started or focused. */
  get active(): RunController | undefined {
    return this.activeFolder === undefined ? undefined : this.byFolder.get(this.activeFolder);
  }

  setActive(folder: string): void {
    if (this.activeFolder === folder || !this.byFolder.has(folder)) return;
    this.activeFolder = folder;
    this.fire(this.byFolder.get(folder)!);
  }

  remove(folder: string): void {
    this.subscriptions.get(folder)?.dispose();
    this.subscriptions.delete(folder);
    this.byFolder.delete(folder);
    if (this.activeFolder === folder) this.activeFolder = this.byFolder.keys().next().value;
  }

  onDidChange(listener: (c: RunController) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private fire(c: RunController): void {
    for (const l of [...this.listeners]) l(c);
  }

  dispose(): void {
    for (const c of this.all()) c.stop();
    for (const d of this.subscriptions.values()) d.dispose();
    this.subscriptions.clear();
    this.listeners.clear();
  }
}
