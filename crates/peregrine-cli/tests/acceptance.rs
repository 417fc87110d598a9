//! The real binary against QuickFIX acceptance scripts over TCP, in `cargo
//! test`: the fast scripts of every suite for FIX.4.4 (routing 1b/1c/1e,
//! garbled input, resends, the admin `SET_SESSION` of `nextexpectedseqnum`),
//! with the memory store and the file store. The full run (505 scripts, all
//! versions) is `peregrine-acceptance`; see the engine's README.

use peregrine_acceptance::{
    acceptance_dir, dictionaries_dir, repo_root, run_parallel, skip_message, suite_specs,
    FieldPatterns, Launcher,
};

fn run(store: &str) {
    let root = repo_root();
    let Some(dir) = acceptance_dir(&root) else {
        println!("{}", skip_message(&root));
        return;
    };
    let patterns = FieldPatterns::load(dir.join("definitions/fields.fmt")).unwrap();
    let suites: Vec<String> = [
        "server",
        "resendreqchunksize",
        "lastseqnumprocessed",
        "nextexpectedseqnum",
    ]
    .map(String::from)
    .to_vec();
    let specs = suite_specs(&dir, &suites, &["fix44".to_string()]);
    assert_eq!(specs.len(), 4);
    let mut launcher = Launcher::new(
        vec![
            env!("CARGO_BIN_EXE_peregrine").to_string(),
            "acceptor".into(),
            "--config".into(),
            "{cfg}".into(),
            "--app".into(),
            "echo".into(),
        ],
        dictionaries_dir(&dir),
        patterns,
    );
    launcher.extra_args = vec!["--store".into(), store.into()];
    // Scripts named with a 1 (1a…1e, 10…21, the FIX.4.4 extras) skip the
    // heartbeat waits of 4a and 6; the other suites' scripts all contain one
    // or are short anyway, so filter per suite.
    let mut failures = Vec::new();
    let mut passed = 0;
    for spec in &specs {
        let mut l = launcher.clone();
        l.filter = spec.label().starts_with("server/").then(|| "1".to_string());
        let outcome = run_parallel(std::slice::from_ref(spec), &l, 1, &|_| {});
        for r in outcome.into_iter().flat_map(|o| o.results) {
            if r.passed {
                passed += 1;
            } else {
                failures.push(format!("{}: {:?}", r.name, r.first_difference));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(passed >= 30, "only {passed} scripts ran");
}

#[test]
fn fast_acceptance_scripts_with_memory_store() {
    run("memory");
}

#[test]
fn fast_acceptance_scripts_with_file_store() {
    run("file");
}
