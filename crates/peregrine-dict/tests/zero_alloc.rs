//! Validation allocates nothing: a counting global allocator around `validate`.

mod common;

use peregrine_alloc::{allocations_in, CountingAllocator};

use peregrine_dict::{Dictionary, ShapeCache, ValidationSettings, Validator};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[test]
fn validate_allocates_nothing() {
    let dict = Dictionary::from_file("dictionaries/FIX44.xml").unwrap();
    let v = Validator::new(&dict, ValidationSettings::default());
    let messages = [
        "8=FIX.4.4|35=8|49=SENDER|56=TARGET|34=12345|52=20240115-10:30:00.123|37=ORD123456|17=EXEC789012|150=0|39=0|54=1|151=1000|14=0|6=0|55=AAPL|38=1000|44=150.50|",
        "8=FIX.4.4|35=D|34=2|49=TW|52=20240115-10:30:00|56=ISLD|11=ID|21=1|40=1|54=1|55=INTC|60=20240115-10:30:00|453=2|448=A|447=D|452=1|802=1|523=x|803=1|448=B|447=D|452=3|",
        // Rejected ones must not allocate either.
        "8=FIX.4.4|35=D|34=2|49=TW|52=20240115-10:30:00|56=ISLD|11=ID|21=4|40=1|54=1|55=INTC|60=20240115-10:30:00|",
        "8=FIX.4.4|35=0|34=2|49=TW|52=20240115-10:30:00|",
        "8=FIX.4.4|35=*|34=2|49=TW|52=20240115-10:30:00|56=ISLD|",
    ];
    let wires: Vec<Vec<u8>> = messages.iter().map(|m| common::wire(m)).collect();
    let mut decoder = common::decoder();
    let mut results = Vec::with_capacity(wires.len() * 1000);
    for w in &wires {
        let _ = v.validate(&decoder.decode(w).unwrap()); // warm up
    }
    let ((), n) = allocations_in(|| {
        for _ in 0..1000 {
            for w in &wires {
                let msg = decoder.decode(w).unwrap();
                results.push(v.validate(&msg).is_ok());
            }
        }
    });
    assert_eq!(n, 0, "allocations during validate");
    assert_eq!(results.iter().filter(|ok| **ok).count(), 2000);

    // With the shape cache (kept shapes, hits, fallbacks to the walk): none either.
    let mut shapes = ShapeCache::new();
    results.clear();
    let ((), n) = allocations_in(|| {
        for _ in 0..1000 {
            for w in &wires {
                let msg = decoder.decode(w).unwrap();
                results.push(v.validate_with(&msg, &mut shapes).is_ok());
            }
        }
    });
    assert_eq!(n, 0, "allocations during validate_with");
    assert_eq!(results.iter().filter(|ok| **ok).count(), 2000);
}
