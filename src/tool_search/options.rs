//! The processor's constructor options: their defaults, the values each
//! accepts, and how the host release applies them.

use crate::releases::Behaviours;
use crate::search::{Ranking, SearchOptions, VectorSource};

use super::given::{Given, Refused};
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

/// The constructor options, as the processor applies them.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub search: SearchOptions,
    pub auto_load: bool,
    pub include_resolved_tools: bool,
    pub storage: Storage,
    /// `ttl ?? 3600000`, as JavaScript gave it.
    pub ttl_ms: f64,
    /// Whether each step lists the catalog in a system message
    /// (`injectCatalog`), as the host honours it: see [`Options::for_host`].
    pub inject_catalog: bool,
    /// `search.ranking`: how the catalogs rank `search_tools` results. This
    /// package's own option; every release honours it.
    pub ranking: Ranking,
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
        }
    }
}

impl Options {
    /// Applies the defaults to the options as given, for the host release.
    ///
    /// Absent (`undefined` or `null`) options take their defaults, and a
    /// falsy `filter` is no filter, as in the reference. A value of another
    /// type than documented is refused where the reference would coerce it or
    /// fail later in a confusing way.
    pub fn from_given(given: &GivenOptions, host: &Behaviours) -> Result<Options, Refused> {
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
        let options = Options {
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
        };
        Ok(options.for_host(host))
    }

    /// Whether `load_tool` is offered: not in `autoLoad` mode, where
    /// `search_tools` loads what it finds.
    pub fn offers_load_tool(&self) -> bool {
        !self.auto_load
    }

    /// Whether loaded state comes from the messages, which the wrapper then
    /// reads for each step.
    pub fn reads_messages(&self) -> bool {
        self.storage == Storage::Context
    }

    /// The options as the host release's processor applies them: releases
    /// before 1.67.0 have no `injectCatalog` and ignore it.
    pub fn for_host(self, host: &Behaviours) -> Options {
        Options { inject_catalog: self.inject_catalog && host.inject_catalog, ..self }
    }
}

const STORAGE_NAMES: &str = "'in-memory' or 'context'";
/// What `options.search.embedder` must be.
const EMBEDDER: &str = "an AI SDK embedding model (an object with a doEmbed function)";
/// [`Ranking::ALL`]'s names, as a refusal lists them (a test keeps them in step).
const RANKING_NAMES: &str = "'reference' or 'fielded' or 'hybrid'";

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
            let options = Options::from_given(&given, &host()).unwrap();
            assert_eq!(options.search, SearchOptions { top_k: 5.0, min_score: 0.0, has_filter: false });
            assert!(!options.auto_load && !options.include_resolved_tools && !options.inject_catalog);
            assert_eq!(options.storage, Storage::InMemory);
            assert_eq!(options.ttl_ms, 3_600_000.0);
            assert_eq!(options.ranking, Ranking::Reference);
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
        };
        let options = Options::from_given(&given, &host()).unwrap();
        assert_eq!(options.ranking, Ranking::FIELDED);
        assert_eq!(options.search.top_k, 2.5);
        assert!(options.search.min_score.is_nan());
        assert!(options.search.has_filter && options.auto_load && options.include_resolved_tools);
        assert_eq!((options.storage, options.ttl_ms, options.inject_catalog), (Storage::Context, 0.0, true));
        assert!(!Options::from_given(&given, &behaviours("1.66.0").unwrap()).unwrap().inject_catalog);
        // A falsy filter is no filter.
        for falsy in [Given::Boolean(false), Given::Number(0.0), Given::String(JsString::from(""))] {
            let given = GivenOptions { filter: falsy, ..GivenOptions::default() };
            assert!(!Options::from_given(&given, &host()).unwrap().search.has_filter);
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
            Options::from_given(&given, &host()).map(|o| o.ranking).map_err(|e| e.to_string())
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
    fn values_of_the_wrong_type_are_refused_by_name() {
        let refused = |given: GivenOptions| Options::from_given(&given, &host()).unwrap_err().to_string();
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
        assert_eq!(&super::super::Phase::ALL.map(super::super::Phase::name)[..], protocol::PHASES);
        assert_eq!(Storage::default_storage().name(), defaults::STORAGE);
        assert_eq!(Ranking::default_ranking().name(), defaults::RANKING);
    }

    #[test]
    fn refusals_list_every_value_an_option_accepts() {
        let list = |names: &[&str]| names.iter().map(|name| format!("'{name}'")).collect::<Vec<_>>().join(" or ");
        assert_eq!(STORAGE_NAMES, list(&Storage::ALL.map(Storage::name)));
        assert_eq!(RANKING_NAMES, list(&Ranking::ALL.map(Ranking::name)));
    }
}
