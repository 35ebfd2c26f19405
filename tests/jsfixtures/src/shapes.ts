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
        for (let i = 0; i < 200; ++i)
            sum += Math.PI * this.radius * this.radius / 200;
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
        for (let i = 0; i < 300; ++i)
            sum += (this.width * this.height) / 300;
        return sum;
    }
}
