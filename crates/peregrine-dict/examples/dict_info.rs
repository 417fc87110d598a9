//! Prints a summary of each dictionary given on the command line.
//!
//! `cargo run -p peregrine-dict --example dict_info -- dictionaries/FIX44.xml`
fn main() {
    for path in std::env::args().skip(1) {
        match peregrine_dict::Dictionary::from_file(&path) {
            Ok(d) => {
                let groups: usize = d
                    .messages()
                    .iter()
                    .map(|m| count_groups(&d.body_scope(m)))
                    .sum();
                let widest = d
                    .messages()
                    .iter()
                    .map(|m| d.body_scope(m).len())
                    .max()
                    .unwrap_or(0);
                println!(
                    "{path}: {} fields={} messages={} components={} max_tag={} header={} trailer={} groups={} widest_body={}",
                    d.version(),
                    d.field_count(),
                    d.messages().len(),
                    d.components().len(),
                    d.max_tag(),
                    d.header_scope().len(),
                    d.trailer_scope().len(),
                    groups,
                    widest
                );
            }
            Err(e) => println!("{e}"),
        }
    }
}

fn count_groups(s: &peregrine_dict::FlatScope<'_>) -> usize {
    s.groups().map(|(_, g)| 1 + count_groups(&g)).sum()
}
