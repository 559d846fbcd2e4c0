-- Search q by whole words (#46): the words of a body, as lib/search/body-words.ts (wordsOf) finds them in a q, and
-- the vector the body's word index holds (delivery_payloads_body_by_bucket_words_idx, built online after this:
-- db/online-indexes.ts), which takes over from the trigram index once valid. A word: letters, digits and _ with
-- @ . + - / : % ? = & # ~ inside, so that ids, e-mail addresses, URLs, numbers and dotted types stay whole and
-- are found by prefix. The body is read through its escape encoding: it never fails, whatever the bytes (a byte
-- over 0x7F is \ooo, part of a word; only A–Z fold). JSON: keys left out, \/ is /, other escapes part words.
-- Form-encoded: fields and values apart, ASCII %xx decoded. XML and HTML: entities part words.
CREATE OR REPLACE FUNCTION inbox_body_words(headers jsonb, body bytea) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT COST 1000 SET search_path = pg_catalog AS $$
  SELECT array(SELECT m[1] FROM regexp_matches(
    regexp_replace(regexp_replace(
      CASE
        WHEN coalesce(headers->>'content-type', '') ILIKE '%x-www-form-urlencoded%' THEN
          regexp_replace(replace(replace(replace(replace(replace(
            translate(lower(encode(body, 'escape') COLLATE "C"), '&=+', '   '),
            '%40', '@'), '%2e', '.'), '%2f', '/'), '%3a', ':'), '%5f', '_'), '%[0-7][0-9a-f]', ' ', 'g')
        WHEN coalesce(headers->>'content-type', '') ~* '(xml|html)' THEN
          regexp_replace(lower(encode(body, 'escape') COLLATE "C"), '&(?:[a-z]+|#[0-9]+|#x[0-9a-f]+);', ' ', 'g')
        WHEN coalesce(headers->>'content-type', '') ILIKE '%json%' THEN
          regexp_replace(lower(encode(body, 'escape') COLLATE "C"), '"(?:[^"\\]|\\\\.|\\[0-7]{3})*"\s*:', ' ', 'g')
        ELSE lower(encode(body, 'escape') COLLATE "C")
      END,
      '\\\\/', '/', 'g'), '\\\\(?:u[0-9a-f]{4}|.)', ' ', 'g'),
    '((?:[a-z0-9_]|\\[0-7]{3})(?:(?:[a-z0-9_@.+/:%?=&#~-]|\\[0-7]{3})*(?:[a-z0-9_]|\\[0-7]{3}))?)', 'g') m
  WHERE length(m[1]) <= 500)
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_body_word_vector(headers jsonb, body bytea) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT COST 1000 SET search_path = pg_catalog AS $$
  SELECT array_to_tsvector(public.inbox_body_words(headers, body))
$$;
