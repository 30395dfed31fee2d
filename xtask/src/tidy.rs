//! Tidy checks: the crate layering rule, the documentation rules and the crates.io metadata,
//! read from the tree.
//!
//! The rule (ARCHITECTURE.md): grid ← jps; grid ← reservations ← wavefront ← mapf;
//! wavefront-gpu (over its device code, wavefront-kernels) beside wavefront (wavefront reaches it
//! only behind `cuda`); the facade re-exports them all; cli, python and xtask sit on
//! top. Any other edge between members is a violation.
//!
//! The dependency budget: a user of `cuplan-jps` alone, without default features, compiles at
//! most [`JPS_ALONE_MAX_CRATES`] crates (cuplan-jps itself included).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// Allowed dependency edges between workspace members: (from, to, only when optional).
const ALLOWED: &[(&str, &str)] = &[
    ("cuplan-jps", "cuplan-grid"),
    ("cuplan-reservations", "cuplan-grid"),
    ("cuplan-wavefront", "cuplan-grid"),
    ("cuplan-wavefront", "cuplan-reservations"),
    ("cuplan-wavefront", "cuplan-wavefront-gpu"),
    ("cuplan-wavefront-gpu", "cuplan-grid"),
    ("cuplan-wavefront-gpu", "cuplan-reservations"),
    ("cuplan-wavefront-gpu", "cuplan-wavefront-kernels"),
    ("cuplan-mapf", "cuplan-grid"),
    ("cuplan-mapf", "cuplan-reservations"),
    ("cuplan-mapf", "cuplan-wavefront"),
    ("cuplan", "cuplan-grid"),
    ("cuplan", "cuplan-jps"),
    ("cuplan", "cuplan-reservations"),
    ("cuplan", "cuplan-wavefront"),
    ("cuplan", "cuplan-wavefront-gpu"),
    ("cuplan", "cuplan-mapf"),
    ("cuplan-cli", "cuplan"),
    ("cuplan-python", "cuplan"),
    ("xtask", "cuplan"),
];

/// Edges that must be optional (behind a feature), as the GPU backend is.
const OPTIONAL_ONLY: &[(&str, &str)] = &[
    ("cuplan-wavefront", "cuplan-wavefront-gpu"),
    ("cuplan", "cuplan-wavefront-gpu"),
];

/// Files every published crate ships beside its manifest (symlinks to the root's copies).
const LICENCE_FILES: &[&str] = &["LICENSE-MIT", "LICENSE-APACHE"];

/// The most keywords crates.io accepts.
const MAX_KEYWORDS: usize = 5;

/// The most crates (itself included) that `cuplan-jps` with `default-features = false` may
/// pull: being light to depend on is its promise to games and wasm users (issue 20), and a
/// new transitive dependency should be a decision, not an accident of a `cargo update`.
const JPS_ALONE_MAX_CRATES: usize = 12;

/// The workspace root (the parent of `xtask/`).
pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// Every problem found; empty means tidy.
pub(crate) fn check(root: &Path) -> anyhow::Result<Vec<String>> {
    let mut problems = Vec::new();
    let metadata = cargo_metadata(root)?;
    check_edges(&metadata, &mut problems);
    problems.extend(jps_alone_problem(&jps_alone_crates(root)?));
    for package in packages(&metadata) {
        check_publishable(package, &mut problems);
    }
    for manifest in member_manifests(&metadata) {
        check_manifest(&manifest, &mut problems)?;
        let src = manifest
            .parent()
            .expect("manifest has a folder")
            .join("src");
        check_module_docs(root, &src, &mut problems)?;
    }
    Ok(problems)
}

/// The standard output of `cargo <args>` run in `root`; offline, so tidy never touches the
/// network and answers from the lock file.
fn cargo(root: &Path, args: &[&str]) -> anyhow::Result<Vec<u8>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(args)
        .arg("--offline")
        .current_dir(root)
        .output()
        .with_context(|| format!("running cargo {}", args[0]))?;
    anyhow::ensure!(
        out.status.success(),
        "cargo {} failed: {}",
        args[0],
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(out.stdout)
}

fn cargo_metadata(root: &Path) -> anyhow::Result<serde_json::Value> {
    let out = cargo(root, &["metadata", "--format-version", "1", "--no-deps"])?;
    Ok(serde_json::from_slice(&out)?)
}

/// The crates a `cuplan-jps` dependency with `default-features = false` compiles for this
/// host: normal and build edges, both the user's to compile; dev-dependencies are not.
fn jps_alone_crates(root: &Path) -> anyhow::Result<BTreeSet<String>> {
    let tree = cargo(
        root,
        &[
            "tree",
            "-p",
            "cuplan-jps",
            "--no-default-features",
            "-e",
            "normal,build",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ],
    )?;
    Ok(distinct_crates(&String::from_utf8_lossy(&tree)))
}

/// `name version` of each crate in a `cargo tree --prefix none` listing: a crate shown again
/// (marked `(*)`) or as a proc-macro counts once, and two versions of one crate count twice,
/// as they are compiled twice.
fn distinct_crates(tree: &str) -> BTreeSet<String> {
    tree.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            Some(format!("{} {}", words.next()?, words.next()?))
        })
        .collect()
}

fn jps_alone_problem(crates: &BTreeSet<String>) -> Option<String> {
    (crates.len() > JPS_ALONE_MAX_CRATES).then(|| {
        format!(
            "cuplan-jps with default-features = false pulls {} crates, more than the \
             {JPS_ALONE_MAX_CRATES} allowed (raise JPS_ALONE_MAX_CRATES in xtask/src/tidy.rs only \
             as a decision): {}",
            crates.len(),
            crates.iter().cloned().collect::<Vec<_>>().join(", ")
        )
    })
}

fn packages(metadata: &serde_json::Value) -> impl Iterator<Item = &serde_json::Value> {
    metadata["packages"].as_array().into_iter().flatten()
}

fn check_edges(metadata: &serde_json::Value, problems: &mut Vec<String>) {
    let members: Vec<&str> = packages(metadata)
        .filter_map(|p| p["name"].as_str())
        .collect();
    for package in packages(metadata) {
        let from = package["name"].as_str().unwrap_or_default();
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            let to = dep["name"].as_str().unwrap_or_default();
            let dev = dep["kind"].as_str() == Some("dev");
            if !members.contains(&to) || from == to {
                continue;
            }
            // Dev-dependencies may reach down the layers too, never up: judge them the same.
            if !ALLOWED.contains(&(from, to)) {
                let kind = if dev { "dev-dependency" } else { "dependency" };
                problems.push(format!(
                    "{from} -> {to}: {kind} edge not allowed by the layering rule (ARCHITECTURE.md)"
                ));
            }
            let optional = dep["optional"].as_bool().unwrap_or(false);
            if OPTIONAL_ONLY.contains(&(from, to)) && !optional && !dev {
                problems.push(format!(
                    "{from} -> {to}: must be optional, behind the `cuda` feature"
                ));
            }
        }
    }
}

fn member_manifests(metadata: &serde_json::Value) -> Vec<PathBuf> {
    packages(metadata)
        .filter_map(|p| p["manifest_path"].as_str().map(PathBuf::from))
        .collect()
}

/// A crate that can be published (no `publish = false`) carries what crates.io and docs.rs show
/// and the licence texts, so `cargo package --workspace` gives complete packages.
fn check_publishable(package: &serde_json::Value, problems: &mut Vec<String>) {
    if package["publish"].as_array().is_some_and(Vec::is_empty) {
        return;
    }
    let name = package["name"].as_str().unwrap_or_default();
    for field in [
        "description",
        "license",
        "repository",
        "readme",
        "rust_version",
    ] {
        if package[field].as_str().is_none_or(str::is_empty) {
            problems.push(format!(
                "{name}: published, so needs `{field}` in its manifest"
            ));
        }
    }
    for field in ["keywords", "categories"] {
        let count = package[field].as_array().map_or(0, Vec::len);
        if count == 0 {
            problems.push(format!(
                "{name}: published, so needs `{field}` in its manifest"
            ));
        }
    }
    if package["keywords"]
        .as_array()
        .is_some_and(|k| k.len() > MAX_KEYWORDS)
    {
        problems.push(format!(
            "{name}: at most {MAX_KEYWORDS} keywords (crates.io)"
        ));
    }
    let Some(dir) = package["manifest_path"]
        .as_str()
        .and_then(|m| Path::new(m).parent())
    else {
        return;
    };
    let readme = package["readme"].as_str().unwrap_or("README.md");
    let mut files: Vec<&str> = LICENCE_FILES.to_vec();
    files.push(readme);
    for file in files {
        // `is_file` follows symlinks, as `cargo package` does.
        if !dir.join(file).is_file() {
            problems.push(format!(
                "{name}: published, so needs {file} in {} (a symlink to the root's copy)",
                dir.display()
            ));
        }
    }
}

fn check_manifest(manifest: &Path, problems: &mut Vec<String>) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(manifest)?;
    let lints = text.split("[lints]").nth(1).unwrap_or("");
    if !lints.trim_start().starts_with("workspace = true") {
        problems.push(format!(
            "{}: needs `[lints] workspace = true`",
            manifest.display()
        ));
    }
    Ok(())
}

/// Every `.rs` file under `src/` opens with `//!` module docs (public items are covered by the
/// `missing_docs = "deny"` workspace lint, which the compiler enforces).
fn check_module_docs(root: &Path, dir: &Path, problems: &mut Vec<String>) -> anyhow::Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            check_module_docs(root, &path, problems)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path)?;
            let first = text
                .lines()
                .find(|l| !l.trim().is_empty() && !l.starts_with("#!"))
                .unwrap_or("");
            if !first.starts_with("//!") {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                problems.push(format!(
                    "{}: must start with `//!` module docs",
                    rel.display()
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_is_tidy() {
        let problems = check(&workspace_root()).unwrap();
        assert!(
            problems.is_empty(),
            "tidy problems:\n{}",
            problems.join("\n")
        );
    }

    #[test]
    fn incomplete_metadata_is_caught() {
        let complete = serde_json::json!({
            "name": "cuplan-grid", "publish": null, "description": "d", "license": "MIT",
            "repository": "r", "readme": "README.md", "rust_version": "1.89",
            "keywords": ["grid"], "categories": ["algorithms"],
            "manifest_path": workspace_root().join("crates/grid/Cargo.toml"),
        });
        let mut problems = Vec::new();
        check_publishable(&complete, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");

        let mut bare = complete.clone();
        bare["keywords"] = serde_json::json!([]);
        bare["description"] = serde_json::Value::Null;
        bare["manifest_path"] = serde_json::json!("/nonexistent/Cargo.toml");
        check_publishable(&bare, &mut problems);
        assert_eq!(problems.len(), 5, "{problems:?}"); // description, keywords, 3 files
        assert!(problems[0].contains("`description`"));

        let mut unpublished = bare;
        unpublished["publish"] = serde_json::json!([]);
        problems.clear();
        check_publishable(&unpublished, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn crates_are_counted_once() {
        let tree = "cuplan-jps v0.1.0 (/w/crates/jps)\n\
                    thiserror v2.0.21\n\
                    thiserror-impl v2.0.21 (proc-macro)\n\
                    syn v2.0.1\n\
                    syn v3.0.10\n\
                    thiserror v2.0.21 (*)\n\
                    \n";
        let crates = distinct_crates(tree);
        assert_eq!(
            crates.into_iter().collect::<Vec<_>>(),
            [
                "cuplan-jps v0.1.0",
                "syn v2.0.1",
                "syn v3.0.10",
                "thiserror v2.0.21",
                "thiserror-impl v2.0.21"
            ]
        );
    }

    #[test]
    fn a_heavy_jps_is_caught() {
        let crates = |n: usize| (0..n).map(|i| format!("crate{i} v1.0.0")).collect();
        assert_eq!(jps_alone_problem(&crates(JPS_ALONE_MAX_CRATES)), None);
        let problem = jps_alone_problem(&crates(JPS_ALONE_MAX_CRATES + 1)).unwrap();
        let over = JPS_ALONE_MAX_CRATES + 1;
        assert!(
            problem.contains(&format!("pulls {over} crates")),
            "{problem}"
        );
        assert!(
            problem.contains(&format!("crate{JPS_ALONE_MAX_CRATES} v1.0.0")),
            "{problem}"
        );
    }

    #[test]
    fn an_upward_edge_is_caught() {
        let metadata = serde_json::json!({"packages": [
            {"name": "cuplan-grid", "dependencies": [{"name": "cuplan-jps", "kind": null}]},
            {"name": "cuplan-jps", "dependencies": [{"name": "cuplan-grid", "kind": null}]},
            {"name": "cuplan-wavefront", "dependencies": [{"name": "cuplan-wavefront-gpu", "kind": null, "optional": false}]},
            {"name": "cuplan-wavefront-gpu", "dependencies": []},
        ]});
        let mut problems = Vec::new();
        check_edges(&metadata, &mut problems);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].starts_with("cuplan-grid -> cuplan-jps"));
        assert!(problems[1].contains("must be optional"));
    }
}
