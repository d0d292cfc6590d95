-- returns the bytes one weight or KV-cache value takes at a precision.

create or replace macro bytes_per_value(precision_name) as case lower(precision_name)
    when 'fp32' then 4.0
    when 'bf16' then 2.0
    when 'fp16' then 2.0
    when 'fp8' then 1.0
    when 'int8' then 1.0
    when 'fp4' then 0.5
    when 'int4' then 0.5
    else error('precision must be fp32, bf16, fp16, fp8, int8, fp4 or int4, not ' || precision_name)
end
