-- Search q by whole words (#46): what the body's word index holds of a body (delivery_payloads_body_by_bucket_words_idx,
-- built online after this: db/online-indexes.ts), which takes over from the trigram index once valid. PostgreSQL's
-- own text search parser, 'simple' configuration (no stemming, no stop words), with positions, so that a q's
-- id, e-mail address, URL or dotted type is found whole as the phrase of its parts (`cus_NffrFeUfNV2Hib`:
-- 'cus' <-> 'nffrfeufnv2hib'), and by prefix (lib/search/body-words.ts). @ is read as a space, so that an
-- e-mail address is its two parts, each found by prefix (`alice@exa*`); so are < > ( ) (the parser would take a
-- tag whole, or a closing parenthesis into a URL). JSON: its string and number values
-- (not its keys), escapes decoded. Form-encoded: fields and values apart, common %xx decoded. Anything else
-- (XML, HTML, plain text) as text: tags' names and attributes are words, entities left out. A body that is not
-- UTF-8 (or a JSON body that is not JSON or is nested too deep, or one whose words pass a tsvector's 1 MB) is
-- read through its escape encoding, its first 256 KiB: the function never fails, whatever the bytes. PARALLEL UNSAFE: catching an error takes a
-- subtransaction, which a parallel query may not start.
CREATE OR REPLACE FUNCTION inbox_body_word_vector(headers jsonb, body bytea) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL UNSAFE COST 1000 AS $$
DECLARE
  kind text := lower(coalesce(headers->>'content-type', ''));
BEGIN
  BEGIN
    IF kind LIKE '%json%' THEN
      RETURN jsonb_to_tsvector('simple', translate(convert_from(body, 'UTF8'), '@<>()', '     ')::jsonb, '["string", "numeric"]');
    ELSIF kind LIKE '%x-www-form-urlencoded%' THEN
      RETURN to_tsvector('simple', replace(replace(replace(replace(replace(replace(replace(replace(replace(
        translate(convert_from(body, 'UTF8'), '&=+@<>()', '        '),
        '%40', ' '), '%2F', '/'), '%2f', '/'), '%3A', ':'), '%3a', ':'), '%2B', '+'), '%2b', '+'), '%2C', ' '), '%20', ' '));
    END IF;
    RETURN to_tsvector('simple', translate(convert_from(body, 'UTF8'), '@<>()', '     '));
  EXCEPTION WHEN invalid_parameter_value OR character_not_in_repertoire OR untranslatable_character
    OR invalid_text_representation OR program_limit_exceeded OR statement_too_complex THEN
    RETURN to_tsvector('simple', translate(left(encode(body, 'escape'), 262144), '@<>()\', '      '));
  END;
END
$$;
