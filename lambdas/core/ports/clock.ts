/** The clock the steps read; tests pass a fixed or stepping one. */
export type Clock = () => Date;
