// Types of bin/require-node.js (plain JavaScript, so that an old Node can run it), for the tests.
export declare const MINIMUM: { major: number; minor: number };
export declare function isSupported(version: string): boolean;
export declare function nodePackage(platform?: string, arch?: string): string;
export declare function installHint(platform?: string, arch?: string): string;
export declare function tooOldMessage(version?: string): string;
export declare function requireNode(): void;
