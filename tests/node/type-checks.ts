// The Node suites run twice, on Node 20 and on Node 24 (Makefile). A type check gives the same
// answer on either (tsc is the same JavaScript), so the second run skips it, saying where it ran.

/** Test options for a test that only runs tsc. */
export const typeCheck = {
  skip: process.env.TYPES_CHECKED_ON
    ? `tsc answers the same on every runtime: checked on ${process.env.TYPES_CHECKED_ON}`
    : false,
};
