//! The built-in demo tools of DESIGN §7 over a catalog generated deterministically at start
//! (ids 1…N), so the README's first command shows every kind of result with any client.

use std::sync::{Arc, RwLock};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use toolwire_core::{ErrorCode, Pagination, Part, PreparedData, ToolError, ToolResult};
use toolwire_mcp::rmcp::model::ToolAnnotations;
use toolwire_mcp::{CallContext, Registry, RegistryError, ToolSource, ToolSpec};

use super::png;

mod input;

/// Products in the demo catalog: enough that the export is well over the 256 KiB limit.
pub(crate) const CATALOG_SIZE: u64 = 2000;

const CATEGORIES: [&str; 5] = ["chairs", "tables", "lamps", "desks", "shelves"];
const NOUNS: [&str; 5] = ["chair", "table", "lamp", "desk", "shelf"];
const ADJECTIVES: [&str; 8] =
    ["Oak", "Walnut", "Steel", "Linen", "Birch", "Brass", "Velvet", "Maple"];

/// One product.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Product {
    /// Its id, from 1.
    pub id: u64,
    /// Its name.
    pub name: String,
    /// Its category.
    pub category: String,
    /// Its price in euros.
    pub price: f64,
    /// Units in stock.
    pub stock: u64,
    /// A sentence about it.
    pub description: String,
    /// The product as the tools send it, value and text, built once and again when the price
    /// changes: a result of products joins their texts instead of writing them out anew.
    #[serde(skip)]
    #[schemars(skip)]
    json: PreparedData,
}

impl Product {
    /// Builds [`Product::json`] from the fields.
    fn refresh(&mut self) {
        self.json = PreparedData::new(serde_json::to_value(&*self).unwrap_or_default());
    }
}

/// The products as a JSON array.
fn products_json<'a>(products: impl IntoIterator<Item = &'a Product>) -> PreparedData {
    PreparedData::array(products.into_iter().map(|p| &p.json))
}

/// The catalog shared by the demo tools.
pub(crate) type Catalog = Arc<RwLock<Vec<Product>>>;

/// The deterministic catalog.
pub(crate) fn catalog() -> Catalog {
    let products = (1..=CATALOG_SIZE)
        .map(|id| {
            let category = CATEGORIES[(id % 5) as usize];
            let noun = NOUNS[(id % 5) as usize];
            let adjective = ADJECTIVES[((id / 5) % 8) as usize];
            let cents = 500 + (id * 7919) % 99_500;
            let mut product = Product {
                id,
                name: format!("{adjective} {noun} {id}"),
                category: category.to_owned(),
                price: cents as f64 / 100.0,
                stock: (id * 31) % 120,
                description: format!(
                    "From the {adjective} line: a {noun} made to order and shipped within {} days.",
                    2 + id % 12
                ),
                json: PreparedData::new(Value::Null),
            };
            product.refresh();
            product
        })
        .collect();
    Arc::new(RwLock::new(products))
}

/// Runs `look` over the products under the read lock: a call borrows the catalog, it never
/// copies all of it.
fn read<T>(catalog: &Catalog, look: impl FnOnce(&[Product]) -> T) -> Result<T, ToolError> {
    catalog
        .read()
        .map(|products| look(&products))
        .map_err(|_| ToolError::new(ErrorCode::ToolError, "The catalog is unavailable."))
}

/// The product with `id` (ids run 1…N in order, so it is found by index).
fn product(products: &[Product], id: u64) -> Option<&Product> {
    let index = usize::try_from(id.checked_sub(1)?).ok()?;
    products.get(index).filter(|p| p.id == id)
}

fn not_found(id: u64) -> ToolError {
    let mut details = Map::new();
    details.insert("id".into(), json!(id));
    ToolError::new(ErrorCode::NotFound, format!("No product {id}")).with_details(details)
}

fn default_limit() -> u32 {
    20
}

fn default_page() -> u32 {
    1
}

/// `catalog_search` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
struct SearchInput {
    /// Words to look for in names and descriptions.
    query: Option<String>,
    /// Only this category (chairs, tables, lamps, desks, shelves).
    category: Option<String>,
    /// Products per page.
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 100))]
    limit: u32,
    /// The page, from 1.
    #[serde(default = "default_page")]
    #[schemars(range(min = 1))]
    page: u32,
}

/// `catalog_get` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
struct GetInput {
    /// The product id.
    id: u64,
}

/// `catalog_count` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
struct CountInput {
    /// Only this category.
    category: Option<String>,
}

/// `catalog_update_price` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
struct UpdateInput {
    /// The product id.
    id: u64,
    /// The new price in euros.
    #[schemars(extend("exclusiveMinimum" = 0))]
    price: f64,
    /// Preview the change without making it.
    #[serde(rename = "dryRun", default)]
    dry_run: bool,
}

/// What a price update changes.
#[derive(Debug, Serialize, JsonSchema)]
struct PriceChange {
    id: u64,
    name: String,
    #[serde(rename = "oldPrice")]
    old_price: f64,
    #[serde(rename = "newPrice")]
    new_price: f64,
}

/// `catalog_reprice` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
struct RepriceInput {
    /// The category whose prices change.
    #[schemars(extend("enum" = CATEGORIES))]
    category: String,
    /// The change in percent (-50 lowers every price by half, 10 raises it by a tenth).
    #[schemars(range(min = -50.0, max = 100.0))]
    percent: f64,
}

/// What a repricing changed.
#[derive(Debug, Serialize, JsonSchema)]
struct Repriced {
    category: String,
    percent: f64,
    /// How many prices changed.
    changed: u64,
}

/// How long `catalog_reprice` takes for one product: a category of 400 takes four seconds.
const REPRICE_STEP: std::time::Duration = std::time::Duration::from_millis(10);

/// No arguments.
#[derive(Debug, Deserialize, JsonSchema)]
struct NoInput {}

/// `legacy_echo` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
struct EchoInput {
    /// The text to echo.
    text: String,
}

/// What `legacy_echo` returns.
#[derive(Debug, Serialize, JsonSchema)]
struct Echo {
    text: String,
}

/// `catalog_chart` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
struct ChartInput {
    /// Chart price bands of this category instead of products per category.
    category: Option<String>,
}

fn read_only() -> ToolAnnotations {
    ToolAnnotations::new().read_only(true).open_world(false)
}

/// The annotations of the tools that change a price: not destructive, idempotent.
fn price_change_hints() -> ToolAnnotations {
    ToolAnnotations::new().destructive(false).idempotent(true)
}

fn built(builder: toolwire_core::ToolResultBuilder) -> ToolResult {
    builder.build().unwrap_or_else(|e| {
        ToolResult::failure(ToolError::new(ErrorCode::ToolError, format!("internal: {e}")))
    })
}

/// The demo tools as a tool source, named `demo`: the catalog of DESIGN §7, an example of a
/// source of Rust tools sharing state.
#[derive(Debug, Clone)]
pub struct Demo {
    tools: Registry,
}

impl Demo {
    /// The demo tools over a fresh catalog of 2000 products (ids 1…2000).
    pub fn new() -> Result<Self, RegistryError> {
        let mut tools = Registry::named("demo");
        register(&mut tools, &catalog())?;
        Ok(Self { tools })
    }
}

impl ToolSource for Demo {
    fn name(&self) -> &str {
        "demo"
    }

    fn tools(&self) -> Registry {
        self.tools.clone()
    }
}

/// Registers the demo tools on `registry`.
fn register(registry: &mut Registry, catalog: &Catalog) -> Result<(), RegistryError> {
    let mut tools = registry.with_state(Arc::clone(catalog));
    tools.register(
        ToolSpec::new(
            "catalog_search",
            "Search the product catalog by words and category; results come a page at a time.",
        )
        .title("Search the catalog")
        .annotations(read_only())
        .output::<Vec<Product>>(),
        |c: Catalog, input: SearchInput| async move { search(&c, input) },
    )?;
    tools.register(
        ToolSpec::new("catalog_get", "Get one product by its id.")
            .title("Get a product")
            .annotations(read_only())
            .output::<Product>(),
        |c: Catalog, input: GetInput| async move {
            let found = read(&c, |products| product(products, input.id).map(|p| p.json.clone()))?;
            found.map(ToolResult::success_prepared).ok_or_else(|| not_found(input.id))
        },
    )?;
    tools.register(
        ToolSpec::new("catalog_count", "Count the products, in one category or in all.")
            .title("Count products")
            .annotations(read_only())
            .output::<u64>(),
        |c: Catalog, input: CountInput| async move {
            let wanted = input.category.as_deref();
            read(&c, |products| {
                products.iter().filter(|p| wanted.is_none_or(|w| p.category == w)).count() as u64
            })
        },
    )?;
    tools.register(
        ToolSpec::new(
            "catalog_update_price",
            "Change a product's price. With dryRun the change is only previewed (no privilege needed); a real update needs the catalog:write privilege.",
        )
        .title("Update a price")
        .annotations(price_change_hints())
        .output::<PriceChange>(),
        |c: Catalog, input: UpdateInput, cx: CallContext| async move {
            update_price(&c, input, &cx)
        },
    )?;
    tools.register(
        ToolSpec::new(
            "catalog_reprice",
            "Change every price of one category by a percentage, one product after another (about four seconds): a task for clients that can hold one, its status saying how far it got; cancelled, it stops where it is. Needs the catalog:write privilege.",
        )
        .title("Reprice a category")
        .annotations(ToolAnnotations::new().destructive(false).idempotent(false))
        .privileges(["catalog:write"])
        .task_support(toolwire_mcp::TaskSupport::Optional)
        .output::<Repriced>(),
        |c: Catalog, input: RepriceInput, cx: CallContext| async move {
            reprice(&c, input, &cx).await
        },
    )?;
    tools.register(
        ToolSpec::new(
            "catalog_export",
            "Export the whole catalog; the result is large and is stored behind a link to read with resources/read.",
        )
        .title("Export the catalog")
        .annotations(read_only()),
        |c: Catalog, _input: NoInput| async move {
            read(&c, |products| {
                ToolResult::success_prepared(products_json(products))
                    .with_summary(format!("The whole catalog: {} products.", products.len()))
            })
        },
    )?;
    tools.register(
        ToolSpec::new(
            "catalog_chart",
            "Draw a PNG bar chart: products per category, or price bands of one category.",
        )
        .title("Chart the catalog")
        .annotations(read_only()),
        |c: Catalog, input: ChartInput| async move { chart(&c, input) },
    )?;
    tools.register(
        ToolSpec::new(
            "legacy_echo",
            "Echo a text through a hand-built legacy {\"success\": …} string, the way old tools answer.",
        )
        .title("Echo (legacy)")
        .annotations(read_only())
        .output::<Echo>(),
        |input: EchoInput| async move { legacy_echo(&input.text) },
    )?;
    input::register(registry, catalog)
}

/// Builds the envelope string by hand on purpose: this is the path the legacy counter counts.
fn legacy_echo(text: &str) -> ToolResult {
    let quoted = serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned());
    let raw = format!(
        r#"{{"success":true,"data":{{"text":{quoted}}},"_meta":{{"summary":"Echoed {} characters."}}}}"#,
        text.chars().count()
    );
    ToolResult::from_legacy_json(&raw)
}

fn search(catalog: &Catalog, input: SearchInput) -> ToolResult {
    match read(catalog, |products| search_in(products, &input)) {
        Ok(result) => result,
        Err(e) => ToolResult::failure(e),
    }
}

fn search_in(products: &[Product], input: &SearchInput) -> ToolResult {
    let words: Vec<String> = input
        .query
        .as_deref()
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    let matches: Vec<&Product> = products
        .iter()
        .filter(|p| input.category.as_deref().is_none_or(|c| p.category == c))
        .filter(|p| {
            if words.is_empty() {
                return true;
            }
            let text = format!("{} {}", p.name, p.description).to_lowercase();
            words.iter().all(|w| text.contains(w.as_str()))
        })
        .collect();
    let total = matches.len() as u64;
    let (limit, page) = (u64::from(input.limit), u64::from(input.page));
    let start = (page - 1).saturating_mul(limit);
    let items: Vec<&Product> =
        matches.iter().copied().skip(start as usize).take(limit as usize).collect();
    let mut pagination = Pagination::new(total, page, limit);
    if start + (items.len() as u64) < total {
        pagination = pagination.next_cursor((page + 1).to_string());
    }
    let shown = items.len();
    ToolResult::success_prepared(products_json(items))
        .with_summary(format!("{total} products match; page {page} shows {shown}."))
        .with_pagination(pagination)
}

fn update_price(catalog: &Catalog, input: UpdateInput, cx: &CallContext) -> ToolResult {
    if !input.dry_run && !cx.principal().has("catalog:write") {
        return ToolResult::failure(ToolError::missing_privilege(["catalog:write"]));
    }
    let Ok(mut products) = catalog.write() else {
        return ToolResult::failure(ToolError::new(
            ErrorCode::ToolError,
            "The catalog is unavailable.",
        ));
    };
    let Some(product) = products.iter_mut().find(|p| p.id == input.id) else {
        return ToolResult::failure(not_found(input.id));
    };
    let change = PriceChange {
        id: product.id,
        name: product.name.clone(),
        old_price: product.price,
        new_price: input.price,
    };
    let summary = if input.dry_run {
        format!(
            "Dry run: the price of {} would change from {} to {}; nothing was changed.",
            change.name, change.old_price, change.new_price
        )
    } else {
        product.price = input.price;
        product.refresh();
        format!(
            "The price of {} changed from {} to {}.",
            change.name, change.old_price, change.new_price
        )
    };
    ToolResult::success(json!(change)).with_summary(summary).with_dry_run(input.dry_run)
}

/// Changes the prices of a category one product at a time, saying how far it got; dropped
/// (a cancelled task), it stops between two products.
async fn reprice(catalog: &Catalog, input: RepriceInput, cx: &CallContext) -> ToolResult {
    let ids = match read(catalog, |products| {
        products.iter().filter(|p| p.category == input.category).map(|p| p.id).collect::<Vec<_>>()
    }) {
        Ok(ids) => ids,
        Err(e) => return ToolResult::failure(e),
    };
    let factor = 1.0 + input.percent / 100.0;
    let total = ids.len();
    for (done, id) in ids.iter().enumerate() {
        if done % 40 == 0 {
            cx.set_status(format!("{done} of {total} prices changed"));
        }
        tokio::time::sleep(REPRICE_STEP).await;
        let Ok(mut products) = catalog.write() else {
            return ToolResult::failure(ToolError::new(
                ErrorCode::ToolError,
                "The catalog is unavailable.",
            ));
        };
        if let Some(product) = products.iter_mut().find(|p| p.id == *id) {
            product.price = (product.price * factor * 100.0).round() / 100.0;
            product.refresh();
        }
    }
    let changed =
        Repriced { category: input.category, percent: input.percent, changed: total as u64 };
    let summary = format!(
        "{} prices of {} changed by {}%.",
        changed.changed, changed.category, changed.percent
    );
    ToolResult::success(json!(changed)).with_summary(summary)
}

fn chart(catalog: &Catalog, input: ChartInput) -> ToolResult {
    let bars = read(catalog, |products| bars(products, input.category.as_deref()));
    let bars = match bars {
        Ok(bars) => bars,
        Err(e) => return ToolResult::failure(e),
    };
    let png = draw(&bars);
    let listed: Vec<String> = bars.iter().map(|(label, n)| format!("{label}: {n}")).collect();
    let summary = match input.category {
        None => format!("Bar chart of products per category ({}).", listed.join(", ")),
        Some(c) => format!("Bar chart of {c} per price band ({}).", listed.join(", ")),
    };
    ToolResult::empty().with_summary(summary).with_part(Part::named_binary(
        png,
        "image/png",
        "chart.png",
    ))
}

/// Products per category, or per price band of `category`.
fn bars(products: &[Product], category: Option<&str>) -> Vec<(String, u64)> {
    match category {
        None => CATEGORIES
            .iter()
            .map(|c| (c.to_string(), products.iter().filter(|p| p.category == *c).count() as u64))
            .collect(),
        Some(category) => {
            let bands = [(0.0, 100.0), (100.0, 250.0), (250.0, 500.0), (500.0, 1000.0)];
            bands
                .iter()
                .map(|(low, high)| {
                    let count = products
                        .iter()
                        .filter(|p| p.category == category && p.price >= *low && p.price < *high)
                        .count() as u64;
                    (format!("{low}-{high} EUR"), count)
                })
                .collect()
        }
    }
}

/// Draws the bars on a white 320×200 canvas (palette: white, blue bars, black axis).
fn draw(bars: &[(String, u64)]) -> Vec<u8> {
    const W: usize = 320;
    const H: usize = 200;
    const BAR: u8 = 1;
    const AXIS: u8 = 2;
    let mut pixels = vec![0u8; W * H];
    let max = bars.iter().map(|(_, n)| *n).max().unwrap_or(0).max(1);
    let slot = W / bars.len().max(1);
    for (i, (_, n)) in bars.iter().enumerate() {
        let height = (*n as usize * (H - 20)) / max as usize;
        for x in i * slot + slot / 6..(i + 1) * slot - slot / 6 {
            for y in H - 10 - height..H - 10 {
                pixels[y * W + x] = BAR;
            }
        }
    }
    for x in 0..W {
        pixels[(H - 10) * W + x] = AXIS;
    }
    png::encode_indexed(W as u32, H as u32, &[[255, 255, 255], [66, 133, 244], [0, 0, 0]], &pixels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_is_deterministic() {
        let a = read(&catalog(), <[Product]>::to_vec).unwrap_or_default();
        let b = read(&catalog(), <[Product]>::to_vec).unwrap_or_default();
        assert_eq!(a.len(), CATALOG_SIZE as usize);
        assert_eq!(serde_json::to_string(&a).ok(), serde_json::to_string(&b).ok());
        assert_eq!(a[0].id, 1);
        assert_eq!(a[0].name, "Oak table 1");
        assert_eq!(a[0].category, "tables");
    }

    /// What the tools send is each product's own serialization, also after a price update.
    #[test]
    fn the_kept_json_follows_the_product() {
        let catalog = catalog();
        let fields = |p: &Product| {
            json!({"id": p.id, "name": p.name, "category": p.category, "price": p.price,
                "stock": p.stock, "description": p.description})
        };
        let products = read(&catalog, <[Product]>::to_vec).unwrap_or_default();
        assert!(products.iter().all(|p| *p.json.value() == fields(p)));
        assert_eq!(
            Some(products[6].json.json()),
            Some(
                r#"{"id":7,"name":"Walnut lamp 7","category":"lamps","price":559.33,"stock":97,"description":"From the Walnut line: a lamp made to order and shipped within 9 days."}"#
            )
        );
        let writer = CallContext::new(
            "catalog_update_price",
            toolwire_mcp::Principal::new("writer", ["catalog:write"]),
            toolwire_core::McpRevision::V2025_11_25,
            "1",
        );
        let input = UpdateInput { id: 7, price: 12.5, dry_run: false };
        assert!(!update_price(&catalog, input, &writer).is_failure());
        let after =
            read(&catalog, |products| products[6].clone()).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(after.price, 12.5);
        assert_eq!(after.json.value().get("price"), Some(&json!(12.5)));
        assert_eq!(*after.json.value(), fields(&after));
        assert_eq!(Some(after.json.json()), serde_json::to_string(&fields(&after)).ok().as_deref());
    }

    #[test]
    fn products_are_found_by_id() {
        let products = read(&catalog(), <[Product]>::to_vec).unwrap_or_default();
        assert_eq!(product(&products, 1).map(|p| p.id), Some(1));
        assert_eq!(product(&products, CATALOG_SIZE).map(|p| p.id), Some(CATALOG_SIZE));
        assert!(product(&products, 0).is_none());
        assert!(product(&products, CATALOG_SIZE + 1).is_none());
    }

    /// The chart of `category` decoded by the `png` crate (`::png`: `png` here is the encoder): its header, palette and pixels as
    /// RGB.
    fn decoded_chart(category: Option<&str>) -> (::png::Info<'static>, Vec<u8>) {
        let input = ChartInput { category: category.map(str::to_owned) };
        let result = chart(&catalog(), input);
        let [Part::Binary(image)] = result.parts() else {
            panic!("one image part expected: {:?}", result.parts())
        };
        assert_eq!(
            (image.mime_type.as_str(), image.name.as_deref()),
            ("image/png", Some("chart.png"))
        );
        let mut decoder = ::png::Decoder::new(std::io::Cursor::new(image.data.clone()));
        decoder.set_transformations(::png::Transformations::EXPAND);
        let mut reader = decoder.read_info().unwrap_or_else(|e| panic!("{e}"));
        let mut rgb = vec![0; reader.output_buffer_size().unwrap_or(0)];
        let frame = reader.next_frame(&mut rgb).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (frame.color_type, frame.bit_depth),
            (::png::ColorType::Rgb, ::png::BitDepth::Eight)
        );
        rgb.truncate(frame.buffer_size());
        (reader.info().clone(), rgb)
    }

    #[test]
    fn the_chart_decodes_as_the_promised_bars() {
        const WHITE: [u8; 3] = [255, 255, 255];
        const BLUE: [u8; 3] = [66, 133, 244];
        const BLACK: [u8; 3] = [0, 0, 0];
        let products = read(&catalog(), <[Product]>::to_vec).unwrap_or_default();
        for category in [None, Some("chairs")] {
            let (info, rgb) = decoded_chart(category);
            // A 320×200 two-bit palette image of white, blue and black.
            assert_eq!((info.width, info.height), (320, 200));
            assert_eq!(
                (info.color_type, info.bit_depth),
                (::png::ColorType::Indexed, ::png::BitDepth::Two)
            );
            assert!(!info.interlaced);
            assert_eq!(info.palette.as_deref(), Some(&[WHITE, BLUE, BLACK].concat()[..]));
            let pixel = |x: usize, y: usize| -> [u8; 3] {
                let at = (y * 320 + x) * 3;
                [rgb[at], rgb[at + 1], rgb[at + 2]]
            };
            // The axis is the black row 10 pixels above the bottom; below it, white.
            assert!((0..320).all(|x| pixel(x, 190) == BLACK), "{category:?}");
            assert!((0..320).all(|x| (191..200).all(|y| pixel(x, y) == WHITE)), "{category:?}");
            // Each bar stands on the axis in the middle of its slot, as tall as its count
            // scaled to the tallest bar's 180 pixels, with white above it.
            let bars = bars(&products, category);
            let max = bars.iter().map(|(_, n)| *n).max().unwrap_or(1) as usize;
            let slot = 320 / bars.len();
            assert!(bars.iter().any(|(_, n)| *n > 0), "{category:?}: {bars:?}");
            for (i, (label, n)) in bars.iter().enumerate() {
                let x = i * slot + slot / 2;
                let height = *n as usize * 180 / max;
                let blue = (0..190).filter(|&y| pixel(x, y) == BLUE).count();
                assert_eq!(blue, height, "{category:?} {label}");
                assert!((190 - height..190).all(|y| pixel(x, y) == BLUE), "{category:?} {label}");
                assert!((0..190 - height).all(|y| pixel(x, y) == WHITE), "{category:?} {label}");
                // Between slots: white down to the axis.
                assert!((0..190).all(|y| pixel(i * slot, y) == WHITE), "{category:?} {label}");
            }
        }
    }

    #[test]
    fn the_export_is_well_over_the_limit() {
        let all = read(&catalog(), <[Product]>::to_vec).unwrap_or_default();
        let size = serde_json::to_string(&all).map(|s| s.len()).unwrap_or(0);
        assert!(size > 262_144 + 65_536, "{size}");
    }
}
