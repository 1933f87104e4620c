export declare const uiAssets: { path: string; file: string; type: string; br?: string; gzip?: string }[];
