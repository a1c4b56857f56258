package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
)

// Judge formats.
const (
	JudgeFormatPlain  = "plain"
	JudgeFormatOpenAI = "openai"
)

// maxJudgeBody bounds a judge's answer: a verdict is a few hundred bytes.
const maxJudgeBody = 1 << 20

// JudgeSystemPrompt is the system message of the openai format
// (docs/judge.md): the label, score and fragment of the plain protocol,
// asked for as JSON.
const JudgeSystemPrompt = `You check one claim against the document given with it. Use only the document: no outside knowledge, no assumptions.
Answer with one JSON object and nothing else:
{"label": "supported" | "contradicted" | "not_addressed", "score": <number from 0 to 1: how likely the document supports the claim>, "fragment": "<the words of the document your label rests on>"}
supported: the document states everything the claim says, with its figures, dates, names, conditions and scope.
contradicted: the document states something that makes the claim false.
not_addressed: the document does not say whether the claim is true, or supports only part of it.`

// NewHTTPJudge returns a judge that asks a model over HTTP: the plain
// protocol (POST the JudgeInput, read back a verdict) or an OpenAI-
// compatible chat completions API. Its id is "plain:" + the URL's host
// and path, or "openai:" + the model.
func NewHTTPJudge(cfg JudgeConfig) (Judge, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	u, _ := url.Parse(cfg.URL) // validated
	timeout, _, concurrency := cfg.limits()
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = concurrency
	j := &httpJudge{
		url:    cfg.URL,
		format: cfg.Format,
		model:  cfg.Model,
		apiKey: cfg.APIKey,
		client: &http.Client{
			Transport: transport,
			// The verifier's per-call context ends first and names the
			// timeout; this bounds a judge used on its own.
			Timeout: timeout + time.Second,
			// A judge answers where it was asked: a redirect is an answer
			// that is not a verdict.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	switch cfg.Format {
	case "", JudgeFormatPlain:
		j.format = JudgeFormatPlain
		j.id = JudgeFormatPlain + ":" + u.Host + u.Path
	case JudgeFormatOpenAI:
		j.id = JudgeFormatOpenAI + ":" + cfg.Model
		if !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/chat/completions") {
			j.url = strings.TrimSuffix(cfg.URL, "/") + "/chat/completions"
		}
	}
	return j, nil
}

// validate checks a judge configuration and names what is wrong.
func (c *JudgeConfig) validate() error {
	if c.URL == "" {
		return errors.New("judge: a url is required")
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return fmt.Errorf("judge: url %q: %v", c.URL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("judge: url %q: want an http:// or https:// URL with a host", c.URL)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("judge: url %q: no query, fragment or user name, please (an API key goes in EVIDENCE_JUDGE_API_KEY)", c.URL)
	}
	switch c.Format {
	case "", JudgeFormatPlain:
	case JudgeFormatOpenAI:
		if c.Model == "" {
			return errors.New("judge: format openai needs a model (--judge-model)")
		}
	default:
		return fmt.Errorf("judge: format %q: want plain or openai", c.Format)
	}
	switch {
	case c.TimeoutMS < 0 || time.Duration(c.TimeoutMS)*time.Millisecond > maxJudgeTimeout:
		return fmt.Errorf("judge: timeout_ms %d: want 0 (default %s) to %d", c.TimeoutMS, defaultJudgeTimeout, maxJudgeTimeout.Milliseconds())
	case c.MaxCalls < 0 || c.MaxCalls > maxJudgeMaxCalls:
		return fmt.Errorf("judge: max_calls %d: want 0 (default %d) to %d", c.MaxCalls, defaultJudgeMaxCalls, maxJudgeMaxCalls)
	case c.Concurrency < 0 || c.Concurrency > maxJudgeConcurrency:
		return fmt.Errorf("judge: concurrency %d: want 0 (default %d) to %d", c.Concurrency, defaultJudgeConcurrency, maxJudgeConcurrency)
	}
	return nil
}

type httpJudge struct {
	id, url, format, model, apiKey string
	client                         *http.Client
}

func (j *httpJudge) ID() string { return j.id }

func (j *httpJudge) Judge(ctx context.Context, in JudgeInput) (JudgeVerdict, error) {
	if j.format == JudgeFormatOpenAI {
		return j.chat(ctx, &in)
	}
	body, err := json.Marshal(&in)
	if err != nil {
		return JudgeVerdict{}, err
	}
	b, err := j.post(ctx, body)
	if err != nil {
		return JudgeVerdict{}, err
	}
	return parseVerdict(b)
}

// post sends one request and returns the body of a 2xx answer, at most
// maxJudgeBody bytes.
func (j *httpJudge) post(ctx context.Context, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrJudgeUnavailable, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if j.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+j.apiKey)
	}
	resp, err := j.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrJudgeUnavailable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return nil, fmt.Errorf("%w: %s answered %s: %q", ErrJudgeUnavailable, j.url, resp.Status, bytes.TrimSpace(msg))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxJudgeBody+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading the answer: %v", ErrJudgeUnavailable, err)
	}
	if len(b) > maxJudgeBody {
		return nil, fmt.Errorf("%w: the answer is larger than %d bytes", ErrJudgeMalformed, maxJudgeBody)
	}
	return b, nil
}

// parseVerdict reads the plain protocol's answer, also the JSON a chat
// model is asked for: {"label","score","fragment"}; fields besides them
// are ignored, a missing label or score is malformed.
func parseVerdict(b []byte) (JudgeVerdict, error) {
	var out struct {
		Label    string   `json:"label"`
		Score    *float64 `json:"score"`
		Fragment string   `json:"fragment"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return JudgeVerdict{}, fmt.Errorf("%w: %v: %.80q", ErrJudgeMalformed, err, b)
	}
	if out.Score == nil {
		return JudgeVerdict{}, fmt.Errorf("%w: no score in %.80q", ErrJudgeMalformed, b)
	}
	v := JudgeVerdict{Label: out.Label, Score: *out.Score, Fragment: out.Fragment}
	return v, checkVerdict(&v)
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"` // 0, sent: no omitempty
	MaxTokens   int           `json:"max_tokens"`
	Stream      bool          `json:"stream"`
	Logprobs    bool          `json:"logprobs"`
	TopLogprobs int           `json:"top_logprobs"`
}

type tokenLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		Logprobs *struct {
			Content []struct {
				tokenLogprob
				TopLogprobs []tokenLogprob `json:"top_logprobs"`
			} `json:"content"`
		} `json:"logprobs"`
	} `json:"choices"`
}

// judgeUserMessage is the user message of the openai format, in
// MiniCheck's template: "Document: " and the evidence spans (a blank line
// between two), then a line "Claim: " and the claim.
func judgeUserMessage(in *JudgeInput) string {
	var b strings.Builder
	b.WriteString("Document: ")
	for i, s := range in.Evidence {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s)
	}
	b.WriteString("\nClaim: ")
	b.WriteString(in.Claim)
	return b.String()
}

func (j *httpJudge) chat(ctx context.Context, in *JudgeInput) (JudgeVerdict, error) {
	body, err := json.Marshal(&chatRequest{
		Model: j.model,
		Messages: []chatMessage{
			{Role: "system", Content: JudgeSystemPrompt},
			{Role: "user", Content: judgeUserMessage(in)},
		},
		MaxTokens:   512,
		Logprobs:    true,
		TopLogprobs: 5,
	})
	if err != nil {
		return JudgeVerdict{}, err
	}
	b, err := j.post(ctx, body)
	if err != nil {
		return JudgeVerdict{}, err
	}
	return parseChat(b)
}

// parseChat reads a chat completion's answer: the JSON verdict asked
// for, or a MiniCheck-style Yes or No.
func parseChat(b []byte) (JudgeVerdict, error) {
	var resp chatResponse
	if err := json.Unmarshal(b, &resp); err != nil {
		return JudgeVerdict{}, fmt.Errorf("%w: not a chat completion: %v: %.80q", ErrJudgeMalformed, err, b)
	}
	if len(resp.Choices) == 0 {
		return JudgeVerdict{}, fmt.Errorf("%w: a chat completion without choices", ErrJudgeMalformed)
	}
	c := &resp.Choices[0]
	content := chatContent(c.Message.Content)
	if strings.HasPrefix(content, "{") {
		return parseVerdict([]byte(content))
	}
	// A MiniCheck-style model answers Yes or No; its score is P(Yes)
	// against P(No) on the first token when logprobs came back.
	var v JudgeVerdict
	switch strings.ToLower(strings.TrimFunc(content, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })) {
	case "yes":
		v.Label, v.Score = JudgeSupported, 1
	case "no":
		v.Label, v.Score = JudgeNotAddressed, 0
	default:
		return JudgeVerdict{}, fmt.Errorf("%w: the answer is neither a JSON verdict nor Yes or No: %.80q", ErrJudgeMalformed, content)
	}
	if c.Logprobs != nil && len(c.Logprobs.Content) > 0 {
		first := &c.Logprobs.Content[0]
		if p, ok := yesProbability(append([]tokenLogprob{first.tokenLogprob}, first.TopLogprobs...)); ok {
			v.Score = p
		}
	}
	return v, nil
}

// chatContent strips what models put around the answer they were asked
// for: a reasoning model's <think> block, and a Markdown code fence.
func chatContent(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "<think>") {
		if _, after, ok := strings.Cut(s, "</think>"); ok {
			s = strings.TrimSpace(after)
		}
	}
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimPrefix(s, "json")
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	return s
}

// yesProbability returns P(Yes) / (P(Yes) + P(No)) over the first token's
// alternatives; the token itself may also be among its top_logprobs, so
// each distinct token counts once.
func yesProbability(alts []tokenLogprob) (float64, bool) {
	var yes, no float64
	seen := map[string]bool{}
	for _, a := range alts {
		if seen[a.Token] || math.IsNaN(a.Logprob) || a.Logprob > 0 {
			continue
		}
		seen[a.Token] = true
		switch strings.ToLower(strings.TrimSpace(a.Token)) {
		case "yes":
			yes += math.Exp(a.Logprob)
		case "no":
			no += math.Exp(a.Logprob)
		}
	}
	if yes+no == 0 {
		return 0, false
	}
	return yes / (yes + no), true
}
