// Entry point of the source-map fixture: runs for about a second of CPU time.
import { crunchAsync } from "./work";

async function main(): Promise<void> {
    const started = Date.now();
    let total = 0;
    while (Date.now() - started < 1000)
        total += await crunchAsync(5);
    console.log(total > 0 ? "done" : "nothing");
}

// A rejection left unhandled makes node exit with an error.
main().then(() => console.log("finished"));
