// Package providers turns a model provider's cited answer into the
// verifier's request (verify.Request): the citations of the Anthropic
// Messages API (char_location, page_location, content_block_location,
// search_result_location, web_search_result_location), OpenAI's
// annotations (Responses API file_citation with the file search results,
// url_citation, container_file_citation; Assistants file_citation),
// Cohere's citations (v2 chat, and v1) and Gemini's grounding supports.
//
// Two steps. Parse reads a provider's response into an Answer: its text,
// and the cited parts of it (each a claim) with their citations, each
// naming the provider's key for the cited document (a document index, a
// file id, a source id, a grounding chunk), a quote where the provider
// gives one, and a range or pages where it gives them. Convert then ties
// each key to a stored document, version or chunk through a Map, finds
// the chunk(s) of that version that hold what is cited, and builds the
// request: one claim per cited part, one evidence item per chunk a
// citation's span falls in, and every chunk of the mapped versions as
// retrieved.
//
// Invariants. Every offset that comes in has a unit (Unit: code points,
// UTF-16 code units or UTF-8 bytes), each format's documented one unless
// the caller says otherwise, and is converted to the code points of the
// contract before use. Every quote is re-checked against the stored text:
// where offsets come with a quote and the quote is not at them but would
// be at the same numbers counted in another unit, the input is refused
// with an error naming that unit; a quote found nowhere is left for the
// verifier to report (quote_not_found), never dropped. A citation that
// cannot be tied to a document and a place in it (a key missing from the
// map, no range, no quote and more than one chunk) is an error naming the
// item: a conversion never returns part of an answer.
//
// For a document the principal may not read, or a deleted version, no
// text is read: the citation goes to a chunk chosen without looking at the
// text (the mapped chunk, else the version's first), and the verifier
// answers forbidden or deleted, so that an error or a chunk choice cannot
// reveal what the document says.
package providers
