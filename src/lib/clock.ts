/**
 * What time it is, for the code whose behaviour depends on it (session expiry, login lockout). Injected, so
 * tests move time forward instead of waiting for it.
 */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
