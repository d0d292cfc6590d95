-- returns the dense peak (TFLOP/s) an accelerator offers at a precision, from its peak
-- columns. Training (allow_fallback false): bf16 falls back to fp16 and back (V100 has no
-- bf16), fp8 needs FP8 tensor cores. Inference (allow_fallback true): weights stored in fp4,
-- fp8 or int8 are computed at the next precision the chip has (e.g. fp4 on H100 -> fp8).

create or replace macro precision_peak_tflops(
    precision_name, bf16, fp16, fp8, fp4, int8, allow_fallback := false
) as case lower(precision_name)
    when 'bf16' then coalesce(bf16, fp16)
    when 'fp16' then coalesce(fp16, bf16)
    when 'fp8' then case when allow_fallback then coalesce(fp8, bf16, fp16) else fp8 end
    when 'fp4' then case when allow_fallback then coalesce(fp4, fp8, bf16, fp16) else fp4 end
    when 'int8' then case when allow_fallback then coalesce(int8, bf16, fp16) else int8 end
    else error('precision must be bf16, fp16, fp8, fp4 or int8, not ' || precision_name)
end
