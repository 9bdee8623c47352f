/**
 * The terminal a full-screen program draws on, and pi-tui's `Terminal` on it. As fzf does, the
 * screen need not be stdout: when stdin or stdout is not a terminal (`text=$(session-tree
 * browse FILE)`, a pipe), the keys are read from and the screen drawn on the process's
 * controlling terminal, `/dev/tty`, so that stdout carries only the result.
 *
 * pi-tui's own `ProcessTerminal` is bound to `process.stdin` and `process.stdout`; the
 * {@link DeviceTerminal} here is the same contract on the streams of a {@link TerminalDevice}.
 * It uses pi-tui's `StdinBuffer` to cut input into whole key sequences and leaves the Kitty
 * keyboard protocol and modifyOtherKeys off: the browser's keys (arrows, Enter, Esc, letters)
 * all have plain xterm sequences, and nothing is left to switch back on the way out.
 */

import { closeSync, openSync } from "node:fs";
import { ReadStream, WriteStream } from "node:tty";
import { StdinBuffer } from "@mariozechner/pi-tui/dist/stdin-buffer.js";
import type { Terminal } from "@mariozechner/pi-tui/dist/terminal.js";

/** Where the keys come from and the screen goes. */
export interface TerminalDevice {
	readonly input: ReadStream;
	readonly output: WriteStream;
	/** Lets go of what was opened for it (`/dev/tty`); the process's own streams stay open. */
	close(): void;
}

/** The terminal device's path (the process's controlling terminal). */
export const TTY_PATH = "/dev/tty";

/** Why no terminal could be found: there is none to draw on (a cron job, a CI runner, `setsid`). */
export class NoTerminalError extends Error {
	constructor(detail: string) {
		super(
			`no terminal to draw on: stdin and stdout are not both terminals and ${TTY_PATH} cannot be opened (${detail})`,
		);
		this.name = "NoTerminalError";
	}
}

/**
 * The terminal to draw on: stdin and stdout themselves when both are terminals, else
 * `/dev/tty` for the one that is not (both streams on one descriptor, opened read-write).
 * @throws NoTerminalError when one is needed and `/dev/tty` cannot be opened
 */
export function openTerminalDevice(
	stdin: NodeJS.ReadStream = process.stdin,
	stdout: NodeJS.WriteStream = process.stdout,
	path: string = TTY_PATH,
): TerminalDevice {
	const inputIsTty = stdin.isTTY === true && stdin instanceof ReadStream;
	const outputIsTty = stdout.isTTY === true && stdout instanceof WriteStream;
	if (inputIsTty && outputIsTty) return { input: stdin, output: stdout, close() {} };
	let fd: number;
	try {
		fd = openSync(path, "r+");
	} catch (error) {
		throw new NoTerminalError(error instanceof Error ? error.message : String(error));
	}
	const opened: Array<ReadStream | WriteStream> = [];
	try {
		const input = inputIsTty ? stdin : new ReadStream(fd);
		if (input !== stdin) opened.push(input);
		const output = outputIsTty ? stdout : new WriteStream(fd);
		if (output !== stdout) opened.push(output);
		return {
			input,
			output,
			close() {
				for (const stream of opened) stream.destroy();
				// libuv opens a tty afresh for its handle: the descriptor itself is still ours to close.
				closeSync(fd);
			},
		};
	} catch (error) {
		for (const stream of opened) stream.destroy();
		closeSync(fd);
		throw new NoTerminalError(error instanceof Error ? error.message : String(error));
	}
}

/** Turns bracketed paste on (the terminal wraps pasted text in markers) and off. */
const PASTE_ON = "\u001b[?2004h";
const PASTE_OFF = "\u001b[?2004l";

/** pi-tui's `Terminal` on a {@link TerminalDevice}: raw input cut into keys, output, size. */
export class DeviceTerminal implements Terminal {
	/** The mode raw mode was taken from (restored by {@link stop}), once taken. */
	private wasRaw: boolean | undefined;
	private buffer: StdinBuffer | undefined;
	private onData: ((data: string | Buffer) => void) | undefined;
	private onResize: (() => void) | undefined;

	constructor(private readonly device: TerminalDevice) {}

	get kittyProtocolActive(): boolean {
		return false;
	}

	/**
	 * Raw mode before the screen starts (the first frame is drawn before pi-tui is loaded): keys
	 * typed meanwhile wait unread, instead of being echoed over the frame. {@link start} keeps the
	 * mode found here, which {@link stop} gives back.
	 */
	holdKeys(): void {
		const { input } = this.device;
		this.wasRaw ??= input.isRaw;
		input.setRawMode(true);
	}

	start(onInput: (data: string) => void, onResize: () => void): void {
		const { input, output } = this.device;
		this.holdKeys();
		input.setEncoding("utf8");
		const buffer = new StdinBuffer({ timeout: 10 });
		buffer.on("data", (sequence) => onInput(sequence));
		// pi-tui's components expect a paste wrapped in its markers, as the terminal sent it.
		buffer.on("paste", (content) => onInput(`\u001b[200~${content}\u001b[201~`));
		this.buffer = buffer;
		this.onData = (data) => buffer.process(data);
		input.on("data", this.onData);
		input.resume();
		output.write(PASTE_ON);
		// Node follows SIGWINCH for process.stdout only: a stream of our own is told here.
		this.onResize = () => {
			if (output !== process.stdout) output.emit("resize");
			onResize();
		};
		process.on("SIGWINCH", this.onResize);
	}

	async drainInput(): Promise<void> {
		// Without the Kitty protocol no key release is on its way.
	}

	stop(): void {
		const { input, output } = this.device;
		output.write(PASTE_OFF);
		if (this.onResize) process.removeListener("SIGWINCH", this.onResize);
		this.onResize = undefined;
		if (this.onData) input.removeListener("data", this.onData);
		this.onData = undefined;
		this.buffer?.destroy();
		this.buffer = undefined;
		// Paused before raw mode goes: a key typed meanwhile is not read by this process.
		input.pause();
		if (this.wasRaw !== undefined) input.setRawMode(this.wasRaw);
		this.wasRaw = undefined;
	}

	write(data: string): void {
		this.device.output.write(data);
	}

	/** Asked of the device each time: a stream of our own does not follow resizes by itself. */
	private size(): [number, number] {
		try {
			const [columns, rows] = this.device.output.getWindowSize();
			if (columns > 0 && rows > 0) return [columns, rows];
		} catch {
			// Not a terminal any more (hung up): the usual size.
		}
		return [Number(process.env.COLUMNS) || 80, Number(process.env.LINES) || 24];
	}

	get columns(): number {
		return this.size()[0];
	}

	get rows(): number {
		return this.size()[1];
	}

	moveBy(lines: number): void {
		if (lines > 0) this.write(`\u001b[${lines}B`);
		else if (lines < 0) this.write(`\u001b[${-lines}A`);
	}

	hideCursor(): void {
		this.write("\u001b[?25l");
	}

	showCursor(): void {
		this.write("\u001b[?25h");
	}

	clearLine(): void {
		this.write("\u001b[K");
	}

	clearFromCursor(): void {
		this.write("\u001b[J");
	}

	clearScreen(): void {
		this.write("\u001b[2J\u001b[H");
	}

	setTitle(title: string): void {
		this.write(`\u001b]0;${title}\u0007`);
	}

	setProgress(): void {
		// The browser shows no progress in the terminal's title bar.
	}
}
