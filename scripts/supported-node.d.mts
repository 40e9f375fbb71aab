/** Types of scripts/supported-node.mjs (plain JavaScript: it runs before anything is built). */

/** The oldest Node.js major the repository supports. */
export declare const SUPPORTED_MAJOR: number
/** The Node 22 binary of the repository, or undefined where npm skipped it. */
export declare function bundledNode(root?: string): string | undefined
/** The binary to run on and the one line to say about it. */
export declare function chooseNode(
  current?: string,
  bundled?: string,
): { path: string; note: string | undefined }
/** NODE_OPTIONS with the ExperimentalWarning silenced (once). */
export declare function quietNodeOptions(options?: string): string
/** Runs the command again on a supported Node when needed; true when it did. */
export declare function relaunchOnSupportedNode(script: string): boolean
