import { customAlphabet } from 'nanoid';

/**
 * A random id of `length` base-36 characters (lowercase letters and digits) from the platform's
 * CSPRNG, uniform over the alphabet (nanoid rejects the bytes a plain modulo would skew).
 */
export const randomId: (length?: number) => string = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 10);
