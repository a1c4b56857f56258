// Package outside measures the verifier on claims written by an outside
// tester against real passages of ../shared/corpus: correct paraphrases and
// labelled wrong claims (cases.jsonl). Its test reports false blocks of
// correct claims and false accepts of wrong ones (README.md); it holds no
// production code and nothing imports it.
package outside
