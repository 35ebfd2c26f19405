// Arrow functions and async code, for the source-map fixture.
import { Circle, Rectangle, Shape } from "./shapes";

export const makeShapes = (count: number): Shape[] =>
    Array.from({ length: count }, (_, i) => (i % 2 === 0 ? new Circle(i) : new Rectangle(i, i + 1)));

export const totalArea = (shapes: Shape[]): number => shapes.reduce((acc, s) => acc + s.area(), 0);

function spin(ms: number): number {
    const end = Date.now() + ms;
    let x = 0;
    while (Date.now() < end)
        x += Math.sqrt(x + 1);
    return x;
}

export async function crunchAsync(rounds: number): Promise<number> {
    let result = 0;
    for (let r = 0; r < rounds; ++r) {
        await new Promise<void>((resolve) => setTimeout(resolve, 0));
        result += totalArea(makeShapes(2000));
        result += spin(2);
    }
    return result;
}
