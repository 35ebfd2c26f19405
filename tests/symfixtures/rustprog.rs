// Fixture for the symbolize tests: a Rust program at opt-level 2 with debug info: generics,
// closures and a trait impl, whose own symbols use the legacy mangling (and std's v0).
use std::fmt;

struct Point {
    x: i64,
    y: i64,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

#[inline(never)]
fn sum_squares<T: Into<i64> + Copy>(v: &[T]) -> i64 {
    v.iter()
        .map(|&e| {
            let e: i64 = e.into();
            e * e
        })
        .sum()
}

#[inline(never)]
fn sorted_words(n: usize) -> Vec<String> {
    let mut words: Vec<String> = (0..n).map(|i| format!("w{}", i % 13)).collect();
    words.sort_by(|a, b| b.cmp(a));
    words
}

fn main() {
    let n = std::env::args().count() * 1000;
    let v: Vec<i32> = (0..n as i32).collect();
    let p = Point { x: sum_squares(&v), y: sorted_words(n).len() as i64 };
    println!("{}", p);
}
