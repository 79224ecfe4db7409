//! The processor's constructor options: their defaults, the values each
//! accepts, and how the host release applies them.

use crate::releases::Behaviours;
use crate::search::{HybridConfig, Ranking, SearchOptions, VectorSource};

use crate::given::{Given, Refused};
use crate::protocol::tool_search::{self as protocol, defaults};

/// Where loaded-tool state lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// A map from thread id to loaded names, swept after `ttl` idle.
    InMemory,
    /// Derived from the `search_tools` / `load_tool` results in the messages.
    Context,
}

impl Storage {
    pub const ALL: [Storage; 2] = [Storage::InMemory, Storage::Context];

    /// The option value that selects it.
    pub fn name(self) -> &'static str {
        protocol::STORAGES[self as usize]
    }

    /// The storage an option value names, if any.
    pub fn from_name(name: &[u16]) -> Option<Storage> {
        Storage::ALL.into_iter().find(|storage| name.iter().copied().eq(storage.name().encode_utf16()))
    }

    /// The documented default ([`defaults::STORAGE`]).
    pub fn default_storage() -> Storage {
        Storage::ALL.into_iter().find(|storage| storage.name() == defaults::STORAGE).expect("the default is a storage")
    }
}

/// How `search_tools` reads its query (`search.syntax`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// Words, ranked by the catalog's ranking: the reference's.
    Words,
    /// A regular expression matched against each tool's name, description
    /// and parameters (see [`crate::search::pattern`]). This package's own.
    Regex,
}

impl Syntax {
    pub const ALL: [Syntax; 2] = [Syntax::Words, Syntax::Regex];

    /// The option value that selects it.
    pub fn name(self) -> &'static str {
        protocol::SYNTAXES[self as usize]
    }

    /// The syntax an option value names, if any.
    pub fn from_name(name: &[u16]) -> Option<Syntax> {
        Syntax::ALL.into_iter().find(|syntax| name.iter().copied().eq(syntax.name().encode_utf16()))
    }

    /// The documented default ([`defaults::SYNTAX`]).
    pub fn default_syntax() -> Syntax {
        Syntax::ALL.into_iter().find(|syntax| syntax.name() == defaults::SYNTAX).expect("the default is a syntax")
    }
}

/// The constructor options, as the processor applies them.
#[derive(Clone, Copy, Debug)]
pub struct ToolSearchOptions {
    pub search: SearchOptions,
    pub auto_load: bool,
    pub include_resolved_tools: bool,
    pub storage: Storage,
    /// `ttl ?? 3600000`, as JavaScript gave it.
    pub ttl_ms: f64,
    /// Whether each step lists the catalog in a system message
    /// (`injectCatalog`), as the host honours it: see [`ToolSearchOptions::for_host`].
    pub inject_catalog: bool,
    /// `search.ranking`: how the catalogs rank `search_tools` results. This
    /// package's own option; every release honours it.
    pub ranking: Ranking,
    /// `search.syntax`: how `search_tools` reads its query. This package's
    /// own option; every release honours it.
    pub syntax: Syntax,
    /// `filterConcurrency`: how many tools the hook may be asked about at
    /// once (at least 1). This package's own option; every release honours it.
    pub filter_concurrency: u32,
}

/// The options as JavaScript read them from the options object:
/// `options.search`, `options.search?.topK`, ..., each as found.
#[derive(Clone, Debug)]
pub struct GivenOptions {
    pub search: Given,
    pub top_k: Given,
    pub min_score: Given,
    pub auto_load: Given,
    pub storage: Given,
    pub ttl: Given,
    pub filter: Given,
    pub include_resolved_tools: Given,
    pub inject_catalog: Given,
    pub ranking: Given,
    /// `options.search?.embedder`, and its `doEmbed` (`embedder?.doEmbed`).
    pub embedder: Given,
    pub embedder_do_embed: Given,
    /// `options.search?.model`, the built-in model handed over (the model
    /// package's export), and its `path` (`model?.path`).
    pub model: Given,
    pub model_path: Given,
    pub syntax: Given,
    pub filter_concurrency: Given,
}

impl Default for GivenOptions {
    /// `{}`: every option left out.
    fn default() -> GivenOptions {
        GivenOptions {
            search: Given::Undefined,
            top_k: Given::Undefined,
            min_score: Given::Undefined,
            auto_load: Given::Undefined,
            storage: Given::Undefined,
            ttl: Given::Undefined,
            filter: Given::Undefined,
            include_resolved_tools: Given::Undefined,
            inject_catalog: Given::Undefined,
            ranking: Given::Undefined,
            embedder: Given::Undefined,
            embedder_do_embed: Given::Undefined,
            model: Given::Undefined,
            model_path: Given::Undefined,
            syntax: Given::Undefined,
            filter_concurrency: Given::Undefined,
        }
    }
}

impl GivenOptions {
    /// The built-in model's file as the user handed it over
    /// (`search.model.path`), where [`ToolSearchOptions::from_given`]
    /// accepted these options and the ranking reads the built-in model; else
    /// the wrapper finds the model package itself.
    pub fn model_file(&self, applied: &ToolSearchOptions) -> Option<String> {
        let builtin = matches!(applied.ranking, Ranking::Hybrid(HybridConfig { vectors: VectorSource::BuiltIn, .. }));
        match &self.model_path {
            Given::String(path) if builtin && !self.model.is_nullish() => Some(path.to_string_lossy()),
            _ => None,
        }
    }
}

impl ToolSearchOptions {
    /// Applies the defaults to the options as given, for the host release.
    ///
    /// Absent (`undefined` or `null`) options take their defaults, and a
    /// falsy `filter` is no filter, as in the reference. A value of another
    /// type than documented is refused where the reference would coerce it or
    /// fail later in a confusing way.
    pub fn from_given(given: &GivenOptions, host: &Behaviours) -> Result<ToolSearchOptions, Refused> {
        let refuse = Refused::new;
        let number = |option, value: &Given, default| match value {
            value if value.is_nullish() => Ok(default),
            Given::Number(n) => Ok(*n),
            other => Err(refuse(option, "a number", other)),
        };
        let boolean = |option, value: &Given, default| match value {
            value if value.is_nullish() => Ok(default),
            Given::Boolean(b) => Ok(*b),
            other => Err(refuse(option, "a boolean", other)),
        };

        if !matches!(given.search, Given::Object { is_array: false }) && !given.search.is_nullish() {
            return Err(refuse("options.search", "an object", &given.search));
        }
        let storage = match &given.storage {
            value if value.is_nullish() => Storage::default_storage(),
            Given::String(name) => {
                Storage::from_name(name).ok_or_else(|| refuse("options.storage", STORAGE_NAMES, &given.storage))?
            }
            other => return Err(refuse("options.storage", STORAGE_NAMES, other)),
        };
        let ranking = match &given.ranking {
            value if value.is_nullish() => Ranking::default_ranking(),
            Given::String(name) => Ranking::from_name(name)
                .ok_or_else(|| refuse("options.search.ranking", RANKING_NAMES, &given.ranking))?,
            other => return Err(refuse("options.search.ranking", RANKING_NAMES, other)),
        };
        // An embedding model of the user's (an AI SDK `EmbeddingModel`) makes
        // the 'hybrid' ranking's vectors in place of the built-in model.
        let ranking = match (&given.embedder, &given.embedder_do_embed, ranking) {
            (embedder, _, ranking) if embedder.is_nullish() => ranking,
            (Given::Object { is_array: false }, Given::Function, ranking @ Ranking::Hybrid(_)) => {
                ranking.with_vectors(VectorSource::Given)
            }
            (Given::Object { is_array: false }, Given::Function, _) => {
                return Err(refuse("options.search.ranking", "'hybrid' with options.search.embedder", &given.ranking))
            }
            (embedder, _, _) => return Err(refuse("options.search.embedder", EMBEDDER, embedder)),
        };
        // The built-in model handed over (`import model from
        // 'mastra-native-processors-potion-base-8m'`), so that a bundler or
        // deployer sees the app import the model package and ships it.
        match (&given.model, &given.model_path) {
            (model, _) if model.is_nullish() => {}
            (Given::Object { is_array: false }, Given::String(_)) => match ranking {
                _ if !given.embedder.is_nullish() => {
                    return Err(refuse("options.search.model", "left out with options.search.embedder", &given.model))
                }
                Ranking::Hybrid(_) => {}
                _ => {
                    return Err(refuse("options.search.ranking", "'hybrid' with options.search.model", &given.ranking))
                }
            },
            (Given::Object { is_array: false }, path) => {
                return Err(refuse("options.search.model.path", "a string, the model file's path", path))
            }
            (model, _) => return Err(refuse("options.search.model", MODEL, model)),
        }
        let syntax = match &given.syntax {
            value if value.is_nullish() => Syntax::default_syntax(),
            Given::String(name) => {
                Syntax::from_name(name).ok_or_else(|| refuse("options.search.syntax", SYNTAX_NAMES, &given.syntax))?
            }
            other => return Err(refuse("options.search.syntax", SYNTAX_NAMES, other)),
        };
        // A pattern alone decides which tools match and in which order, so
        // the ranking (checked above all the same) goes unused: the catalogs
        // get the default's, and neither the built-in model is read nor the
        // user's embedder called (it would embed every pattern and tool for
        // nothing).
        let ranking = if syntax == Syntax::Regex { Ranking::default_ranking() } else { ranking };
        let filter_concurrency = match &given.filter_concurrency {
            value if value.is_nullish() => defaults::FILTER_CONCURRENCY,
            // Any positive integer; more than `u32::MAX` at once is as many
            // as there are tools.
            Given::Number(n) if n.fract() == 0.0 && *n >= 1.0 => n.min(f64::from(u32::MAX)) as u32,
            other => return Err(refuse("options.filterConcurrency", "a positive integer", other)),
        };
        let has_filter = match &given.filter {
            value if !value.is_truthy() => false,
            Given::Function => true,
            other => return Err(refuse("options.filter", "a function", other)),
        };
        let ttl_ms = match &given.ttl {
            value if value.is_nullish() => defaults::TTL,
            Given::Number(n) => *n,
            other => return Err(refuse("options.ttl", "a number of milliseconds", other)),
        };
        let options = ToolSearchOptions {
            search: SearchOptions {
                top_k: number("options.search.topK", &given.top_k, defaults::TOP_K)?,
                min_score: number("options.search.minScore", &given.min_score, defaults::MIN_SCORE)?,
                has_filter,
            },
            auto_load: boolean("options.search.autoLoad", &given.auto_load, defaults::AUTO_LOAD)?,
            include_resolved_tools: boolean(
                "options.includeResolvedTools",
                &given.include_resolved_tools,
                defaults::INCLUDE_RESOLVED_TOOLS,
            )?,
            storage,
            ttl_ms,
            inject_catalog: boolean("options.injectCatalog", &given.inject_catalog, defaults::INJECT_CATALOG)?,
            ranking,
            syntax,
            filter_concurrency,
        };
        Ok(options.for_host(host))
    }

    /// Whether `load_tool` is offered: not in `autoLoad` mode, where
    /// `search_tools` loads what it finds.
    pub fn offers_load_tool(&self) -> bool {
        !self.auto_load
    }

    /// Whether the catalogs keep the tools' parameters (so JavaScript should
    /// read them from the tools' input schemas and send them): for a ranking
    /// that reads them, and for a `search_tools` query that is a pattern,
    /// which is matched against them.
    pub fn reads_parameters(&self) -> bool {
        self.ranking.reads_parameters() || self.syntax == Syntax::Regex
    }

    /// Whether loaded state comes from the messages, which the wrapper then
    /// reads for each step.
    pub fn reads_messages(&self) -> bool {
        self.storage == Storage::Context
    }

    /// The options as the host release's processor applies them: releases
    /// before 1.67.0 have no `injectCatalog` and ignore it.
    pub fn for_host(self, host: &Behaviours) -> ToolSearchOptions {
        ToolSearchOptions { inject_catalog: self.inject_catalog && host.inject_catalog, ..self }
    }
}

const STORAGE_NAMES: &str = "'in-memory' or 'context'";
/// What `options.search.embedder` must be.
const EMBEDDER: &str = "an AI SDK embedding model (an object with a doEmbed function)";
/// What `options.search.model` must be.
const MODEL: &str = "the built-in model package's export (import model from 'mastra-native-processors-potion-base-8m')";
/// [`Ranking::ALL`]'s names, as a refusal lists them (a test keeps them in step).
const RANKING_NAMES: &str = "'reference' or 'fielded' or 'hybrid'";
/// [`Syntax::ALL`]'s names, as a refusal lists them.
const SYNTAX_NAMES: &str = "'words' or 'regex'";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::JsString;
    use crate::releases::behaviours;

    fn host() -> Behaviours {
        behaviours("1.71.0").unwrap()
    }

    #[test]
    fn absent_options_take_the_documented_defaults() {
        for absent in [Given::Undefined, Given::Null] {
            let given = GivenOptions {
                search: absent.clone(),
                top_k: absent.clone(),
                storage: absent.clone(),
                ttl: absent.clone(),
                inject_catalog: absent.clone(),
                ..GivenOptions::default()
            };
            let options = ToolSearchOptions::from_given(&given, &host()).unwrap();
            assert_eq!(options.search, SearchOptions { top_k: 5.0, min_score: 0.0, has_filter: false });
            assert!(!options.auto_load && !options.include_resolved_tools && !options.inject_catalog);
            assert_eq!(options.storage, Storage::InMemory);
            assert_eq!(options.ttl_ms, 3_600_000.0);
            assert_eq!(options.ranking, Ranking::Reference);
            assert_eq!((options.syntax, options.filter_concurrency), (Syntax::Words, 1));
            assert!(!options.reads_parameters());
        }
    }

    #[test]
    fn given_values_are_kept_and_the_host_decides_on_inject_catalog() {
        let given = GivenOptions {
            search: Given::Object { is_array: false },
            top_k: Given::Number(2.5),
            min_score: Given::Number(f64::NAN),
            auto_load: Given::Boolean(true),
            storage: Given::String(JsString::from("context")),
            ttl: Given::Number(0.0),
            filter: Given::Function,
            include_resolved_tools: Given::Boolean(true),
            inject_catalog: Given::Boolean(true),
            ranking: Given::String(JsString::from("fielded")),
            embedder: Given::Undefined,
            embedder_do_embed: Given::Undefined,
            model: Given::Undefined,
            model_path: Given::Undefined,
            // (A pattern would leave the ranking unused: see
            // `a_pattern_query_reads_parameters_whatever_the_ranking`.)
            syntax: Given::String(JsString::from("words")),
            filter_concurrency: Given::Number(32.0),
        };
        let options = ToolSearchOptions::from_given(&given, &host()).unwrap();
        assert_eq!(options.ranking, Ranking::FIELDED);
        assert_eq!((options.syntax, options.filter_concurrency), (Syntax::Words, 32));
        assert_eq!(options.search.top_k, 2.5);
        assert!(options.search.min_score.is_nan());
        assert!(options.search.has_filter && options.auto_load && options.include_resolved_tools);
        assert_eq!((options.storage, options.ttl_ms, options.inject_catalog), (Storage::Context, 0.0, true));
        assert!(!ToolSearchOptions::from_given(&given, &behaviours("1.66.0").unwrap()).unwrap().inject_catalog);
        // A falsy filter is no filter.
        for falsy in [Given::Boolean(false), Given::Number(0.0), Given::String(JsString::from(""))] {
            let given = GivenOptions { filter: falsy, ..GivenOptions::default() };
            assert!(!ToolSearchOptions::from_given(&given, &host()).unwrap().search.has_filter);
        }
    }

    #[test]
    fn an_embedder_makes_hybrid_vectors_given_and_is_refused_otherwise() {
        let apply = |ranking: &str, embedder: Given, do_embed: Given| {
            let given = GivenOptions {
                ranking: Given::String(JsString::from(ranking)),
                embedder,
                embedder_do_embed: do_embed,
                ..GivenOptions::default()
            };
            ToolSearchOptions::from_given(&given, &host()).map(|o| o.ranking).map_err(|e| e.to_string())
        };
        let model = || Given::Object { is_array: false };
        assert_eq!(apply("hybrid", Given::Undefined, Given::Undefined), Ok(Ranking::HYBRID));
        assert_eq!(apply("hybrid", model(), Given::Function), Ok(Ranking::HYBRID.with_vectors(VectorSource::Given)));
        assert_eq!(apply("fielded", Given::Null, Given::Undefined), Ok(Ranking::FIELDED));
        assert_eq!(
            apply("fielded", model(), Given::Function),
            Err("options.search.ranking must be 'hybrid' with options.search.embedder, got the string \"fielded\""
                .into())
        );
        for (embedder, do_embed, shown) in [
            (model(), Given::Undefined, "an object"),
            (Given::Function, Given::Function, "a function"),
            (Given::String(JsString::from("openai")), Given::Undefined, "the string \"openai\""),
        ] {
            assert_eq!(
                apply("hybrid", embedder, do_embed),
                Err(format!("options.search.embedder must be {EMBEDDER}, got {shown}"))
            );
        }
    }

    #[test]
    fn a_model_handed_over_names_the_builtin_file_and_is_refused_otherwise() {
        let given = |ranking: &str, model: Given, path: Given| GivenOptions {
            ranking: Given::String(JsString::from(ranking)),
            model,
            model_path: path,
            ..GivenOptions::default()
        };
        let apply = |given: &GivenOptions| {
            ToolSearchOptions::from_given(given, &host())
                .map(|applied| (applied.ranking, given.model_file(&applied)))
                .map_err(|e| e.to_string())
        };
        let object = || Given::Object { is_array: false };
        let file = || Given::String(JsString::from("/app/node_modules/m/potion-base-8m.m2v"));
        assert_eq!(
            apply(&given("hybrid", object(), file())),
            Ok((Ranking::HYBRID, Some("/app/node_modules/m/potion-base-8m.m2v".into())))
        );
        // Left out (or null): the wrapper finds the model package itself.
        assert_eq!(apply(&given("hybrid", Given::Undefined, Given::Undefined)), Ok((Ranking::HYBRID, None)));
        assert_eq!(apply(&given("fielded", Given::Null, Given::Undefined)), Ok((Ranking::FIELDED, None)));
        // A pattern query ranks nothing: no model is read.
        let pattern =
            GivenOptions { syntax: Given::String(JsString::from("regex")), ..given("hybrid", object(), file()) };
        assert_eq!(apply(&pattern), Ok((Ranking::default_ranking(), None)));
        assert_eq!(
            apply(&given("fielded", object(), file())),
            Err("options.search.ranking must be 'hybrid' with options.search.model, got the string \"fielded\"".into())
        );
        let both = GivenOptions {
            embedder: object(),
            embedder_do_embed: Given::Function,
            ..given("hybrid", object(), file())
        };
        assert_eq!(
            apply(&both),
            Err("options.search.model must be left out with options.search.embedder, got an object".into())
        );
        assert_eq!(
            apply(&given("hybrid", object(), Given::Undefined)),
            Err("options.search.model.path must be a string, the model file's path, got undefined".into())
        );
        for (model, shown) in [
            (Given::String(JsString::from("potion-base-8m")), "the string \"potion-base-8m\""),
            (Given::Object { is_array: true }, "an array"),
            (Given::Boolean(true), "the boolean true"),
        ] {
            assert_eq!(
                apply(&given("hybrid", model, Given::Undefined)),
                Err(format!("options.search.model must be {MODEL}, got {shown}"))
            );
        }
    }

    #[test]
    fn values_of_the_wrong_type_are_refused_by_name() {
        let refused = |given: GivenOptions| ToolSearchOptions::from_given(&given, &host()).unwrap_err().to_string();
        let text = |s: &str| Given::String(JsString::from(s));
        assert_eq!(
            refused(GivenOptions { top_k: text("3"), ..GivenOptions::default() }),
            "options.search.topK must be a number, got the string \"3\""
        );
        assert_eq!(
            refused(GivenOptions { storage: text("disk"), ..GivenOptions::default() }),
            "options.storage must be 'in-memory' or 'context', got the string \"disk\""
        );
        assert_eq!(
            refused(GivenOptions { filter: text("yes"), ..GivenOptions::default() }),
            "options.filter must be a function, got the string \"yes\""
        );
        assert_eq!(
            refused(GivenOptions { search: Given::Number(5.0), ..GivenOptions::default() }),
            "options.search must be an object, got the number 5"
        );
        assert_eq!(
            refused(GivenOptions { ttl: text("abc"), ..GivenOptions::default() }),
            "options.ttl must be a number of milliseconds, got the string \"abc\""
        );
        assert_eq!(
            refused(GivenOptions { inject_catalog: Given::Number(1.0), ..GivenOptions::default() }),
            "options.injectCatalog must be a boolean, got the number 1"
        );
        assert_eq!(
            refused(GivenOptions { auto_load: Given::Number(1.0), ..GivenOptions::default() }),
            "options.search.autoLoad must be a boolean, got the number 1"
        );
        assert_eq!(
            refused(GivenOptions { ranking: text("bm25"), ..GivenOptions::default() }),
            "options.search.ranking must be 'reference' or 'fielded' or 'hybrid', got the string \"bm25\""
        );
        assert_eq!(
            refused(GivenOptions { ranking: Given::Boolean(true), ..GivenOptions::default() }),
            "options.search.ranking must be 'reference' or 'fielded' or 'hybrid', got the boolean true"
        );
        assert_eq!(
            refused(GivenOptions { syntax: text("glob"), ..GivenOptions::default() }),
            "options.search.syntax must be 'words' or 'regex', got the string \"glob\""
        );
    }

    #[test]
    fn a_pattern_query_reads_parameters_whatever_the_ranking() {
        let regex = GivenOptions { syntax: Given::String(JsString::from("regex")), ..GivenOptions::default() };
        let options = ToolSearchOptions::from_given(&regex, &host()).unwrap();
        assert_eq!((options.syntax, options.ranking), (Syntax::Regex, Ranking::Reference));
        assert!(options.reads_parameters() && !options.ranking.reads_parameters());
        for ranking in ["fielded", "hybrid"] {
            let given = GivenOptions { ranking: Given::String(JsString::from(ranking)), ..regex.clone() };
            assert_eq!(
                ToolSearchOptions::from_given(&given, &host()).unwrap().ranking,
                Ranking::Reference,
                "{ranking}"
            );
        }
        let embedder = GivenOptions {
            ranking: Given::String(JsString::from("hybrid")),
            embedder: Given::Object { is_array: false },
            embedder_do_embed: Given::Function,
            ..regex.clone()
        };
        assert_eq!(
            ToolSearchOptions::from_given(&embedder, &host()).unwrap().ranking,
            Ranking::Reference,
            "no embedder called"
        );
        let unknown = GivenOptions { ranking: Given::String(JsString::from("bm25")), ..regex };
        assert!(ToolSearchOptions::from_given(&unknown, &host()).is_err(), "a ranking is still checked");
    }

    #[test]
    fn filter_concurrency_is_a_positive_integer() {
        let concurrency = |n: f64| {
            let given = GivenOptions { filter_concurrency: Given::Number(n), ..GivenOptions::default() };
            ToolSearchOptions::from_given(&given, &host()).map(|options| options.filter_concurrency)
        };
        assert_eq!(concurrency(1.0), Ok(1));
        assert_eq!(concurrency(64.0), Ok(64));
        assert_eq!(concurrency(1e300), Ok(u32::MAX), "beyond u32: as many as there are tools");
        for bad in [0.0, -0.0, -4.0, 1.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.5] {
            let refused = concurrency(bad).unwrap_err().to_string();
            assert!(
                refused.starts_with("options.filterConcurrency must be a positive integer, got the number "),
                "{refused}"
            );
        }
        let refused = |value: Given| {
            let given = GivenOptions { filter_concurrency: value, ..GivenOptions::default() };
            ToolSearchOptions::from_given(&given, &host()).unwrap_err().to_string()
        };
        assert_eq!(
            refused(Given::String(JsString::from("4"))),
            "options.filterConcurrency must be a positive integer, got the string \"4\""
        );
        assert_eq!(
            refused(Given::Number(f64::NAN)),
            "options.filterConcurrency must be a positive integer, got the number NaN"
        );
        assert_eq!(
            refused(Given::Boolean(true)),
            "options.filterConcurrency must be a positive integer, got the boolean true"
        );
        let null = GivenOptions { filter_concurrency: Given::Null, ..GivenOptions::default() };
        assert_eq!(ToolSearchOptions::from_given(&null, &host()).unwrap().filter_concurrency, 1);
    }

    #[test]
    fn storage_names_round_trip() {
        for storage in Storage::ALL {
            let name: Vec<u16> = storage.name().encode_utf16().collect();
            assert_eq!(Storage::from_name(&name), Some(storage));
        }
        assert_eq!(Storage::from_name(&"In-Memory".encode_utf16().collect::<Vec<_>>()), None);
    }

    #[test]
    fn the_protocol_names_every_value_in_order_and_the_defaults_among_them() {
        assert_eq!(&Storage::ALL.map(Storage::name)[..], protocol::STORAGES);
        assert_eq!(&Ranking::ALL.map(Ranking::name)[..], protocol::RANKINGS);
        assert_eq!(&Syntax::ALL.map(Syntax::name)[..], protocol::SYNTAXES);
        assert_eq!(Syntax::default_syntax().name(), defaults::SYNTAX);
        assert_eq!(&super::super::Phase::ALL.map(super::super::Phase::name)[..], protocol::PHASES);
        assert_eq!(Storage::default_storage().name(), defaults::STORAGE);
        assert_eq!(Ranking::default_ranking().name(), defaults::RANKING);
    }

    #[test]
    fn refusals_list_every_value_an_option_accepts() {
        let list = |names: &[&str]| names.iter().map(|name| format!("'{name}'")).collect::<Vec<_>>().join(" or ");
        assert_eq!(STORAGE_NAMES, list(&Storage::ALL.map(Storage::name)));
        assert_eq!(RANKING_NAMES, list(&Ranking::ALL.map(Ranking::name)));
        assert_eq!(SYNTAX_NAMES, list(&Syntax::ALL.map(Syntax::name)));
    }
}
