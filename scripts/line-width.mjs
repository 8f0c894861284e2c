// Fails on source lines over 130 characters, the width the formatters use: they cannot split
// comments, strings or markup, so those are checked here.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

const WIDTH = 130;
const patterns = ["*.rs", "*.ts", "*.tsx", "*.js", "*.mjs", "*.css", "*.html", "*.py", "Makefile"];
const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "--", ...patterns], {
  encoding: "utf8",
});
const files = listed.split("\n").filter((f) => f !== "" && !f.startsWith("www/attrmap/") && existsSync(f));
const long = files.flatMap((file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line, i) => ([...line].length > WIDTH ? [`${file}:${i + 1}`] : [])),
);
if (long.length > 0) {
  console.error(`lines over ${WIDTH} characters:\n${long.join("\n")}`);
  process.exit(1);
}
