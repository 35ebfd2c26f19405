// Classes with methods and getters, for the source-map fixture.
export interface Shape {
    area(): number;
    readonly name: string;
}

export class Circle implements Shape {
    constructor(private readonly radius: number) {}
    get name(): string {
        return "circle";
    }
    area(): number {
        let sum = 0;
        for (let i = 0; i < 1000; ++i)
            sum += Math.PI * this.radius * this.radius / 1000;
        return sum;
    }
}

export class Rectangle implements Shape {
    constructor(private readonly width: number, private readonly height: number) {}
    get name(): string {
        return "rectangle";
    }
    area(): number {
        let sum = 0;
        for (let i = 0; i < 1500; ++i)
            sum += (this.width * this.height) / 1500;
        return sum;
    }
}
