export declare function findFirefox(): string | null;
export declare function findMiniBrowser(): string | null;
